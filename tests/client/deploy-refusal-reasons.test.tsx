import { useDom } from './setup.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { itchAccount, itchKey } from '../api/deploys-support.ts';
import { startFakeItchApi, type FakeItchApi } from '../support/fake-itch/api.ts';
import { installFakeButler, type FakeButler } from '../support/fake-itch/index.ts';
import { uploadPackage } from '../support/packages.ts';
import { makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Issue 30: the deploy dialog says a server refusal by its details.reason (src/shared/refusal-reasons.ts),
 * never by the English message. The real server serves the page and the form; the deploy call itself
 * is answered with each refusal and a message no text depends on, so only the reason can choose the words.
 */
useDom();
setDefaultTimeout(60_000);
const { act, cleanup, fireEvent, within } = await import('@testing-library/react');
const { openApp, until } = await import('./app-harness.tsx');
const { setApiOrigin, setBearerToken } = await import('../../src/client/lib/api.ts');
const { setLanguage } = await import('../../src/client/lib/i18n/index.ts');

let itch: FakeItchApi;
let butler: FakeButler;
let server: TestServer;
let team: Team;
let siteId: string;
let versionId: string;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  itch = startFakeItchApi({ keys: {} });
  butler = installFakeButler({ apiUrl: itch.url, steps: 2, stepMs: 20 });
  server = await startTestServer({ ITCH_API_URL: itch.url, BUTLER_PATH: butler.path });
  team = await makeTeam(server);
  const key = itchKey();
  itch.setKey(key, itchAccount('reasons', ['game']));
  const credential = await server.fetch('/api/users/me/deploy-credentials', { method: 'POST', token: team.owner.token, json: { provider: 'itch', key } });
  const site = await server.fetch(`/api/projects/${team.project.id}/deploy-sites`, { method: 'POST', token: team.owner.token, json: { credential: ((await credential.json()) as { id: string }).id, site: 'reasons/game' } });
  siteId = ((await site.json()) as { id: string }).id;
  const linux = await uploadPackage(server, team.owner, team.project.id, { 'game.sh': '#!/bin/sh\n' }, { tags: ['os:linux'], title: 'Linux build', entrypoint: ['game.sh'] });
  const version = await server.fetch(`/api/projects/${team.project.id}/versions`, { method: 'POST', token: team.owner.token, json: { title: '1.0', description: '', packages: [linux.id] } });
  versionId = ((await version.json()) as { id: string }).id;
}, 90_000);
afterAll(async () => {
  globalThis.fetch = realFetch;
  cleanup();
  await server?.stop();
  await itch?.stop();
  butler?.cleanup();
});
beforeEach(() => {
  globalThis.fetch = realFetch;
  setBearerToken(null);
  setApiOrigin(server.url);
  setLanguage('en');
  sessionStorage.clear();
});

/** What the dialog shows after Deploy when the deploy call answers `status` with this refusal body. */
async function refusalShownFor(status: number, body: { code: string; message: string; details?: unknown }): Promise<string> {
  openApp(`/projects/${team.project.id}/versions/${versionId}`, team.owner.token);
  let toolbar: HTMLElement | null = null;
  await until(() => {
    toolbar = document.querySelector<HTMLElement>('.version_actions');
    expect(toolbar).not.toBeNull();
  });
  await act(() => fireEvent.click(within(toolbar!).getByRole('button', { name: 'Deploy to site' })));
  let dialog: HTMLElement | null = null;
  await until(() => {
    dialog = document.querySelector<HTMLElement>('dialog.deploy_dialog');
    expect(dialog?.querySelector('select[name="site"]')).toBeTruthy();
  });
  await act(() => fireEvent.change(dialog!.querySelector('select[name="site"]')!, { target: { value: siteId } }));
  await until(() => expect(dialog!.querySelector('li.deploy_package')).not.toBeNull());
  const deploy = within(dialog!).getByRole('button', { name: 'Deploy' }) as HTMLButtonElement;
  expect(deploy.disabled).toBe(false);
  globalThis.fetch = Object.assign(
    (input: string | URL | Request, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (url.endsWith(`/versions/${versionId}/deploy`) && init?.method === 'POST') return Promise.resolve(Response.json(body, { status }));
      return realFetch(input, init);
    },
    { preconnect: realFetch.preconnect },
  );
  await act(() => fireEvent.click(deploy));
  let shown = '';
  await until(() => {
    shown = dialog!.querySelector('.deploy_refusal')?.textContent ?? '';
    expect(shown).not.toBe('');
  });
  globalThis.fetch = realFetch;
  expect(dialog!.querySelector('[data-testid="deploy-progress"]')).toBeNull();
  await act(() => fireEvent.click(within(dialog!).getByRole('button', { name: 'Cancel' })));
  return shown;
}

/** A message no client text may come from: the words below can only come from details.reason. */
const unread = 'A sentence for people, not for programs';

describe('the deploy dialog says each refusal by its reason', () => {
  test('no_packages: the §5 sentence', async () => {
    expect(await refusalShownFor(400, { code: 'bad_param', message: unread, details: { field: 'packages', reason: 'no_packages' } })).toBe('No packages to deploy.');
  });

  test('shared_channel: the §5 sentence with details.count and details.channel', async () => {
    expect(await refusalShownFor(400, { code: 'bad_param', message: unread, details: { field: 'packages', channel: 'all', count: 3, reason: 'shared_channel' } })).toBe(
      'Multiple packages cannot be deployed to a single channel. Currently 3 packages are set to deploy to channel all.',
    );
  });

  test('channel_busy: another package is being deployed to that channel', async () => {
    expect(await refusalShownFor(409, { code: 'name_conflict', message: unread, details: { field: 'packages', channel: 'linux', reason: 'channel_busy' } })).toBe(
      'Another package of this project is being deployed to that channel right now. Try again when it has finished.',
    );
  });

  test("butler_missing and steam_not_supported: the site's problem, whatever the site's provider", async () => {
    expect(await refusalShownFor(501, { code: 'not_supported', message: unread, details: { reason: 'butler_missing' } })).toStartWith("butler, itch.io's upload tool, is not installed on this server");
    expect(await refusalShownFor(501, { code: 'not_supported', message: unread, details: { provider: 'steam', reason: 'steam_not_supported' } })).toStartWith('Steam is not supported:');
  });

  test('the same code without a reason (or with one outside the list) is the catalogued error, not a guess', async () => {
    expect(await refusalShownFor(400, { code: 'bad_param', message: 'No packages to deploy.' })).toBe('Error: invalid input.');
    expect(await refusalShownFor(409, { code: 'name_conflict', message: unread, details: { reason: 'something_new' } })).toBe('Error: this name is already taken.');
  });
});
