import { useDom } from './setup.ts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { authorizeAt, finishExternal, freshIdentity, registerExternally, started } from '../support/external-auth.ts';
import { createProject, makePublic } from '../support/projects.ts';
import { startFakeProviders, type FakeProviders } from '../support/fake-providers/index.ts';
import { findFreePort } from '../support/free-port.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import type { ExternalIntent, SignInProviderId } from '../../src/shared/schemas/external-auth.ts';

/**
 * Issue 29, trap 4: a provider's refusal reads as what the provider did, never as a password error or
 * this server's slowness, and the oauth page offers the next step (create an account with the
 * provider, try again). The real server finishes each sign-in with the loopback fake providers; a
 * second server points GitHub and itch.io's API at a port nobody listens on.
 */
useDom();
setDefaultTimeout(180_000);
const { act, cleanup, fireEvent, within } = await import('@testing-library/react');
const { openApp, until } = await import('./app-harness.tsx');
const { setApiOrigin, setBearerToken } = await import('../../src/client/lib/api.ts');
const { externalAuthStorageKey } = await import('../../src/client/lib/auth/external-auth.ts');
const { errorText } = await import('../../src/client/lib/errors.ts');
const { setLanguage } = await import('../../src/client/lib/i18n/index.ts');

let fakes: FakeProviders;
let server: TestServer;
/** GitHub and itch.io's API unreachable (a closed port). */
let unreachable: TestServer;

beforeAll(async () => {
  fakes = await startFakeProviders();
  server = await startTestServer(fakes.env);
  await registerUser(server, 'first-admin');
  const dead = `http://127.0.0.1:${await findFreePort()}`;
  unreachable = await startTestServer({ ...fakes.env, GITHUB_URL: dead, GITHUB_API_URL: `${dead}/api`, ITCH_API_URL: dead });
  await registerUser(unreachable, 'first-admin');
}, 90_000);
afterAll(async () => {
  cleanup();
  await server?.stop();
  await unreachable?.stop();
  await fakes?.close();
});

/** Where the client sends the browser to leave for a provider (location.assign), caught instead of followed. */
let leftFor: string[] = [];
beforeEach(() => {
  setBearerToken(null);
  setApiOrigin(server.url);
  setLanguage('en');
  localStorage.clear();
  leftFor = [];
  (window.location as { assign: (url: string | URL) => void }).assign = (url) => void leftFor.push(String(url));
});
afterEach(() => {
  delete (window.location as { assign?: unknown }).assign;
  fakes.knobs.steam.isValid = true;
});

type Stored = { token: string; returnTo: string; intent: ExternalIntent; provider: string };
const stored = (): Stored | null => JSON.parse(localStorage.getItem(externalAuthStorageKey) ?? 'null') as Stored | null;

/** A sign-in started on the server and approved by the fake provider: the address it sends the browser back to. */
async function providerReturn(on: TestServer, provider: SignInProviderId, intent: ExternalIntent, returnTo = '/docs/en/'): Promise<{ token: string; back: string }> {
  const start = await started(on, provider, intent);
  const back = await authorizeAt(start);
  localStorage.setItem(externalAuthStorageKey, JSON.stringify({ token: start.token, returnTo, intent, provider }));
  return { token: start.token, back: back.pathname + back.search + back.hash };
}

/** The oauth page's refusal once shown: its alert and the page's main area. */
async function refusal(): Promise<{ alert: HTMLElement; main: HTMLElement }> {
  let alert: HTMLElement | null = null;
  await until(() => {
    alert = document.querySelector<HTMLElement>('main [role="alert"]');
    expect(alert).not.toBeNull();
  });
  return { alert: alert!, main: document.querySelector('main')! };
}

/** The one next-step button of the page. */
function nextButton(main: HTMLElement, name: string): HTMLElement {
  const buttons = within(main).getAllByRole('button');
  expect(buttons.map((button) => button.textContent)).toEqual([name]);
  return buttons[0]!;
}

describe('error texts (src/client/lib/errors.ts)', () => {
  test("a provider's refusal says what the provider did, not this server's failure", () => {
    expect(errorText({ code: 'wrong_credentials', details: { provider: 'steam', reason: 'no_account' } })).toBe('no account here is linked to this Steam account');
    expect(errorText({ code: 'wrong_credentials', details: { provider: 'steam', reason: 'provider_refused' } })).toBe('Steam did not confirm the sign-in');
    expect(errorText({ code: 'wrong_credentials', details: { provider: 'steam', reason: 'invalid_assertion' } })).toBe('Steam did not confirm the sign-in');
    expect(errorText({ code: 'timeout', details: { provider: 'itch', reason: 'provider_unavailable' } })).toBe('itch.io did not answer');
    expect(errorText({ code: 'unexpected_error', details: { provider: 'github', reason: 'provider_error' } })).toBe('GitHub answered in an unexpected way');
    expect(errorText({ code: 'unexpected_error', details: { provider: 'itch', reason: 'provider_answer' } })).toBe('itch.io answered in an unexpected way');
  });

  test('without a known provider or reason, the code says it as before', () => {
    expect(errorText({ code: 'wrong_credentials' })).toBe('wrong user name or password');
    expect(errorText({ code: 'wrong_credentials', details: { provider: 'myspace', reason: 'no_account' } })).toBe('wrong user name or password');
    expect(errorText({ code: 'timeout', details: { provider: 'itch', reason: 'something_else' } })).toBe('the server took too long');
    expect(errorText({ code: 'timeout', details: 'itch' })).toBe('the server took too long');
    expect(errorText({ code: 'timeout', details: { provider: ['itch'], reason: 'provider_unavailable' } })).toBe('the server took too long');
  });

  test('in the language of the interface', () => {
    setLanguage('de');
    expect(errorText({ code: 'timeout', details: { provider: 'itch', reason: 'provider_unavailable' } })).toBe('itch.io hat nicht geantwortet');
    setLanguage('en');
  });
});

describe('the oauth page after a refusal', () => {
  test('Steam with no linked account: said so, and "Create an account with Steam" signs up with it and comes back', async () => {
    const identity = { ...freshIdentity('steam'), name: 'Gordon Steam' };
    fakes.signInAs('steam', identity);
    const { back } = await providerReturn(server, 'steam', 'login', '/docs/en/getting-started');
    openApp(back);
    const { alert, main } = await refusal();
    expect(alert.textContent).toBe('The sign-in could not be finished' + 'No Cartridge account is linked to this Steam account.');
    expect(main.textContent).not.toContain('password');
    expect(main.textContent).not.toContain('Error:');
    const create = nextButton(main, 'Create an account with Steam');
    act(() => fireEvent.click(create));
    await until(() => expect(leftFor).toHaveLength(1));
    expect(new URL(leftFor[0]!).origin).toBe(fakes.origins.steam);
    expect(stored()).toMatchObject({ intent: 'register', provider: 'steam', returnTo: '/docs/en/getting-started' });
    expect(document.querySelector('main [role="status"]')?.textContent).toBe('Redirecting to Steam…');
    // A second press while leaving starts nothing more.
    act(() => fireEvent.click(create));

    // The provider approves and sends the browser back: the account is made, and the page is the one left.
    const response = await fetch(leftFor[0]!, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const again = new URL(response.headers.get('location')!);
    openApp(again.pathname + again.search);
    await until(() => expect(location.pathname).toBe('/docs/en/getting-started'));
    await until(() => expect(document.querySelector('header')?.textContent).toContain('Signed in as Gordon Steam'));
    expect(leftFor).toHaveLength(1);
  });

  test('an assertion Steam did not confirm: "Steam did not confirm the sign-in", and Try again starts it anew', async () => {
    fakes.signInAs('steam', freshIdentity('steam'));
    const { back } = await providerReturn(server, 'steam', 'login');
    fakes.knobs.steam.isValid = false;
    openApp(back);
    const { alert, main } = await refusal();
    expect(alert.querySelector('.oauth_hint')?.textContent).toBe('Steam did not confirm the sign-in.');
    expect(alert.querySelector('[data-error-code]')?.getAttribute('data-error-code')).toBe('wrong_credentials');
    expect(main.textContent).not.toContain('password');
    act(() => fireEvent.click(nextButton(main, 'Try again')));
    await until(() => expect(leftFor).toHaveLength(1));
    expect(new URL(leftFor[0]!).origin).toBe(fakes.origins.steam);
    expect(stored()).toMatchObject({ intent: 'login', provider: 'steam', returnTo: '/docs/en/' });
  });

  test('a state that is not the stored token: a stale link or another browser, and Try again restarts that provider', async () => {
    const { back } = await providerReturn(server, 'github', 'login', '/store');
    localStorage.setItem(externalAuthStorageKey, JSON.stringify({ ...stored(), token: 'xs_another_sign_in' }));
    openApp(back);
    const { alert, main } = await refusal();
    expect(alert.querySelector('.oauth_hint')?.textContent).toBe('This sign-in link is stale or was opened in another browser.');
    expect(alert.querySelector('.oauth_hint')?.getAttribute('data-reason')).toBe('state_mismatch');
    expect(main.textContent).not.toContain('could not be finished.');
    act(() => fireEvent.click(nextButton(main, 'Try again')));
    await until(() => expect(leftFor).toHaveLength(1));
    expect(new URL(leftFor[0]!).origin).toBe(fakes.origins.github);
    expect(stored()).toMatchObject({ intent: 'login', provider: 'github', returnTo: '/store' });
  });

  test('opened in a browser that started nothing: the same words, and Try again offers the services', async () => {
    const { back } = await providerReturn(server, 'github', 'login');
    localStorage.clear();
    openApp(back);
    const { alert, main } = await refusal();
    expect(alert.querySelector('.oauth_hint')?.textContent).toBe('This sign-in link is stale or was opened in another browser.');
    act(() => fireEvent.click(nextButton(main, 'Try again')));
    let dialog: HTMLElement | null = null;
    // The services once the instance has named them (until then the dialog says it is loading).
    await until(() => {
      dialog = document.querySelector('dialog[open]');
      expect(dialog?.textContent).toContain('Choose a service');
      expect(within(dialog!).getByRole('button', { name: 'Continue with Steam' })).toBeTruthy();
    });
    expect(leftFor).toHaveLength(0);
  });

  test('a sign-in finished already (the server no longer knows its token): the same words and Try again', async () => {
    const start = await started(server, 'github', 'login');
    const back = await authorizeAt(start);
    // Another tab finished it first.
    expect((await finishExternal(server, { state: start.token, code: back.searchParams.get('code')! })).status).toBe(401);
    localStorage.setItem(externalAuthStorageKey, JSON.stringify({ token: start.token, returnTo: '/', intent: 'login', provider: 'github' }));
    openApp(back.pathname + back.search);
    const { alert, main } = await refusal();
    expect(alert.querySelector('.oauth_hint')?.getAttribute('data-reason')).toBe('sign_in_attempt_expired');
    expect(alert.querySelector('.oauth_hint')?.textContent).toBe('This sign-in link is stale or was opened in another browser.');
    act(() => fireEvent.click(nextButton(main, 'Try again')));
    await until(() => expect(stored()).toMatchObject({ intent: 'login', provider: 'github' }));
  });

  test('cancelled at the provider (no code): said so, with Try again', async () => {
    const { token } = await providerReturn(server, 'github', 'login');
    openApp(`/oauth?error=access_denied&state=${token}`);
    const { alert, main } = await refusal();
    expect(alert.querySelector('.oauth_hint')?.textContent).toBe('GitHub did not send the sign-in back: it was cancelled or refused there.');
    nextButton(main, 'Try again');
  });

  test('an unreachable provider: "GitHub did not answer", not the server taking too long, with Try again', async () => {
    setApiOrigin(unreachable.url);
    const start = await started(unreachable, 'github', 'login');
    localStorage.setItem(externalAuthStorageKey, JSON.stringify({ token: start.token, returnTo: '/', intent: 'login', provider: 'github' }));
    openApp(`/oauth?code=any-code&state=${start.token}`);
    const { alert, main } = await refusal();
    expect(alert.querySelector('.oauth_hint')?.textContent).toBe('GitHub did not answer. Try again later.');
    expect(main.textContent).not.toContain('the server took too long');
    nextButton(main, 'Try again');
  });
});

describe('provider avatars that cannot be loaded', () => {
  test("on /me and on the store page, the account's initial takes the broken picture's place", async () => {
    const session = await registerExternally(server, fakes, 'github', { ...freshIdentity('github'), name: 'octo', avatarUrl: 'https://avatars.unreachable.example/octo.png' });
    const owner = { name: '', password: '', cookie: '', token: session.authToken, id: session.userInfo.id };
    openApp('/me', owner.token);
    let picture: HTMLImageElement | null = null;
    await until(() => {
      picture = document.querySelector<HTMLImageElement>('li.credential_item[data-provider="github"] img.credential_picture');
      expect(picture?.getAttribute('src')).toBe('https://avatars.unreachable.example/octo.png');
    });
    act(() => void fireEvent.error(picture!));
    const row = document.querySelector('li.credential_item[data-provider="github"]')!;
    expect(row.querySelector('img')).toBeNull();
    expect(row.querySelector('.credential_picture_none')?.textContent).toBe('O');
    expect(row.querySelector('.credential_picture_none')?.getAttribute('aria-hidden')).toBe('true');

    const credential = (await (await server.fetch('/api/users/me/credentials', { token: owner.token })).json()) as { name: string }[];
    expect((await server.fetch(`/api/users/me/credentials?provider=github&name=${credential[0]!.name}`, { method: 'PATCH', token: owner.token, json: { isPublic: true } })).status).toBe(200);
    const project = await createProject(server, owner, 'Avatar Check');
    await makePublic(server, project, owner);
    openApp(`/store/${project.id}`);
    await until(() => {
      picture = document.querySelector<HTMLImageElement>('.store_credential[data-provider="github"] img');
      expect(picture?.getAttribute('alt')).toBe('Profile picture of octo');
    });
    act(() => void fireEvent.error(picture!));
    const item = document.querySelector('.store_credential[data-provider="github"]')!;
    expect(item.querySelector('img')).toBeNull();
    expect(item.querySelector('.store_credential_picture_none')?.textContent).toBe('O');
    // The account is still named and linked.
    expect(item.textContent).toContain('octo');
  });
});

describe('adding a deploy key while itch.io is unreachable', () => {
  let owner: TestUser;
  beforeAll(async () => {
    owner = await registerUser(unreachable);
  });

  test("the dialog says itch.io did not answer (the server's refusal), not that the server took too long", async () => {
    setApiOrigin(unreachable.url);
    openApp('/me', owner.token);
    let add: HTMLElement | undefined;
    await until(() => {
      add = [...document.querySelectorAll('button')].find((button) => button.textContent === 'Add deploy credential');
      expect(add).toBeDefined();
    });
    act(() => fireEvent.click(add!));
    let dialog: HTMLElement | null = null;
    await until(() => {
      dialog = document.querySelector('dialog[open]');
      expect(dialog).not.toBeNull();
    });
    act(() => void fireEvent.change(within(dialog!).getByLabelText('API key'), { target: { value: 'a'.repeat(40) } }));
    act(() => fireEvent.click(within(dialog!).getByRole('button', { name: 'Add' })));
    await until(() => expect(dialog!.querySelector('[role="alert"]')?.textContent).toBe('Error: itch.io did not answer.'));
  });
});
