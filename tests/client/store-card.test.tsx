import { useDom } from './setup.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createProject, grantPrivilege, makePublic } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { listedProject, type ListedProject } from '../support/store-fixtures.ts';
import { startLocalHelper, type LocalHelper } from './local-app-support.ts';

/**
 * The store page's card (issue 29) in happy-dom against the real server and the real local app: per
 * platform (the user agent) and visitor kind (signed out, signed in, with the cloud_play privilege,
 * with the local app answering), the ways to play in their order (primary-action.ts), and the rule
 * that only a player whose local app answers sees Install in the package rows.
 */
useDom();
setDefaultTimeout(180_000);
const { cleanup } = await import('@testing-library/react');
const { openApp, until } = await import('./app-harness.tsx');
const { setApiOrigin, setBearerToken } = await import('../../src/client/lib/api.ts');
const { setLocalHelperClient } = await import('../../src/client/lib/local-app/helper.ts');
const { createLocalHelperClient } = await import('../../src/shared/local/helper-client.ts');
const { LOCAL_APP_SEEN_KEY } = await import('../../src/client/lib/local-app/use-local-app.ts');

const pageOrigin = 'http://localhost:3000';
const realFetch = globalThis.fetch;
const agents = {
  windows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
  linux: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
  mac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15',
  iphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
};
let server: TestServer;
let helper: LocalHelper;
let owner: TestUser;
let player: TestUser;
let cloudPlayer: TestUser;
let game: ListedProject;
const originalAgent = navigator.userAgent;

beforeAll(async () => {
  server = await startTestServer();
  helper = await startLocalHelper({ trust: [pageOrigin] });
  owner = await registerUser(server, 'ada_dev');
  player = await registerUser(server);
  cloudPlayer = await registerUser(server);
  await grantPrivilege(server, cloudPlayer, 'cloud_play');
  game = await listedProject(server, owner, 'Rocket Garden', { platforms: ['web', 'windows', 'linux'], description: 'Grow rockets.' });
}, 60_000);
afterAll(async () => {
  cleanup();
  setLocalHelperClient(undefined);
  setAgent(originalAgent);
  await helper?.dispose();
  await server?.stop();
});
beforeEach(() => {
  setBearerToken(null);
  setApiOrigin(server.url);
  localStorage.clear();
  // The helper as a browser reaches it (with the page's Origin); asked only where it answered before.
  setLocalHelperClient(
    createLocalHelperClient({
      baseUrl: helper.url,
      fetch: ((input: RequestInfo | URL, init?: RequestInit) => realFetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), origin: pageOrigin } })) as typeof fetch,
    }),
  );
});

/** What the browser says of itself (visitor-platform.ts reads it when the page mounts). */
function setAgent(agent: string): void {
  Object.defineProperty(navigator, 'userAgent', { value: agent, configurable: true });
  Object.defineProperty(navigator, 'platform', { value: '', configurable: true });
}

const card = () => document.querySelector<HTMLElement>('.store_primary');
const offers = () => [...(card()?.querySelectorAll<HTMLElement>('[data-offer]') ?? [])].map((item) => item.dataset.offer);
const firstButton = () => card()?.querySelector('.store_offer_first .button')?.textContent;
const installRows = () => document.querySelectorAll('.store_downloads [data-action="install"], .store_downloads [data-action="local_setup"]').length;

async function openStore(agent: string, user?: TestUser): Promise<void> {
  setAgent(agent);
  openApp(`/store/${game.project.id}`, user?.token);
  await until(() => expect(card()).not.toBeNull());
  await until(() => expect(document.querySelectorAll('.store_downloads .store_package')).toHaveLength(3));
}

describe('without the local app', () => {
  const cases: [string, string, TestUser | (() => TestUser) | undefined, string[]][] = [
    ['Windows', agents.windows, undefined, ['play', 'download', 'install']],
    ['Linux', agents.linux, undefined, ['play', 'download', 'install']],
    ['macOS (no build for it)', agents.mac, undefined, ['play']],
    ['iPhone', agents.iphone, undefined, ['play']],
    ['Linux, signed in', agents.linux, () => player, ['play', 'download', 'install']],
    // The privilege alone is not enough: no cloud machine is online on this server.
    ['Linux, cloud_play but no machine online', agents.linux, () => cloudPlayer, ['play', 'download', 'install']],
  ];
  for (const [name, agent, user, expected] of cases) {
    test(`${name}: ${expected.join(', ')}; no Install rows, one link to the local app where it runs`, async () => {
      await openStore(agent, typeof user === 'function' ? user() : user);
      await until(() => expect(offers()).toEqual(expected));
      expect(firstButton()).toBe('Play in browser');
      expect(card()?.dataset.action).toBe('play');
      const links = [...document.querySelectorAll<HTMLAnchorElement>('main a')].filter((link) => link.textContent === 'Install with the local app');
      expect(links.map((link) => link.getAttribute('href'))).toEqual(expected.includes('install') ? ['/local'] : []);
      if (expected.includes('download')) expect(card()?.querySelector('[data-offer="download"] button')?.textContent).toBe(`Download for ${name.startsWith('Windows') ? 'Windows' : 'Linux'}`);
      expect(installRows()).toBe(0);
      expect(document.querySelectorAll('main button[disabled]')).toHaveLength(0);
      expect(main().textContent).not.toContain('The local app is not connected.');
    });
  }
});

const main = () => document.querySelector('main#content') as HTMLElement;

describe('with the local app answering', () => {
  beforeEach(() => localStorage.setItem(LOCAL_APP_SEEN_KEY, '1'));

  test('Linux: Install before the download in the card, Install in every package row', async () => {
    await openStore(agents.linux);
    await until(() => expect(offers()).toEqual(['play', 'install', 'download']));
    await until(() => expect(card()?.querySelector<HTMLButtonElement>('[data-offer="install"] [data-action="install"] button')?.disabled).toBe(false));
    expect([...document.querySelectorAll('main a')].some((link) => link.textContent === 'Install with the local app')).toBe(false);
    await until(() => expect(document.querySelectorAll('.store_downloads .store_local_launchers [data-action="install"] button:not([disabled])')).toHaveLength(3));
  });

  test('iPhone: the local app has no phone build, so no install offer', async () => {
    await openStore(agents.iphone);
    await until(() => expect(offers()).toEqual(['play']));
  });

  test('a helper that refuses this site: the link to /local says why', async () => {
    setLocalHelperClient(
      createLocalHelperClient({
        baseUrl: helper.url,
        fetch: ((input: RequestInfo | URL, init?: RequestInit) => realFetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), origin: 'http://other.example' } })) as typeof fetch,
      }),
    );
    await openStore(agents.windows);
    await until(() => expect(card()?.querySelector('.store_offer_hint')?.textContent).toBe('The local app does not trust this site yet.'));
    expect(offers()).toEqual(['play', 'download', 'install']);
    expect(installRows()).toBe(0);
  });
});

test('a public project with nothing on a public branch says no versions are available, not that packages are listed below', async () => {
  const empty = await createProject(server, owner, 'Nothing Yet');
  await makePublic(server, empty, owner);
  setAgent(agents.linux);
  openApp(`/store/${empty.id}`);
  await until(() => expect(card()?.querySelector('.store_primary_none')?.textContent).toBe('No versions are available yet.'));
  expect(card()?.textContent).not.toContain('listed below');
  expect(card()?.querySelector('.store_primary_all')).toBeNull();
});
