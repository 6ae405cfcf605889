import { useDom } from './setup.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startDeployWorld, type DeployWorld } from '../api/deploy-world.ts';
import { answerTrpc, type RestCall } from './trpc-fake.ts';

/**
 * Issue 30: the deploy dialog says a server refusal by its details.reason (src/shared/refusal-reasons.ts),
 * never by the English message. The real server serves the page and the form; the deploy call itself
 * (tRPC) is answered with each refusal and a message no text depends on, so only the reason can choose the words.
 */
useDom();
setDefaultTimeout(180_000);
const { act, cleanup, fireEvent, within } = await import('@testing-library/react');
const { openApp, until } = await import('./app-harness.tsx');
const { setApiOrigin, setBearerToken } = await import('../../src/client/lib/api.ts');
const { setLanguage } = await import('../../src/client/lib/i18n/index.ts');

let world: DeployWorld;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  world = await startDeployWorld('reasons');
}, 90_000);
afterAll(async () => {
  globalThis.fetch = realFetch;
  cleanup();
  await world?.stop();
});
beforeEach(() => {
  globalThis.fetch = realFetch;
  setBearerToken(null);
  setApiOrigin(world.server.url);
  setLanguage('en');
  sessionStorage.clear();
});

/** What the dialog shows after Deploy when the deploy call answers `status` with this refusal body. */
async function refusalShownFor(status: number, body: { code: string; message: string; details?: unknown }): Promise<string> {
  openApp(`/projects/${world.team.project.id}/versions/${world.versionId}`, world.team.owner.token);
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
  await act(() => fireEvent.change(dialog!.querySelector('select[name="site"]')!, { target: { value: world.siteId } }));
  await until(() => expect(dialog!.querySelector('li.deploy_package')).not.toBeNull());
  const deploy = within(dialog!).getByRole('button', { name: 'Deploy' }) as HTMLButtonElement;
  expect(deploy.disabled).toBe(false);
  // The dialog's deploy call (tRPC deploys.version.start, read as its REST row) answers the refusal.
  const isDeploy = (call: RestCall) => call.method === 'POST' && call.path.endsWith(`/versions/${world.versionId}/deploy`);
  globalThis.fetch = Object.assign(
    async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      return (await answerTrpc(url, init, (call) => (isDeploy(call) ? { status, json: body } : undefined), realFetch)) ?? realFetch(input, init);
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
