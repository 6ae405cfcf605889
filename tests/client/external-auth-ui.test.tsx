import { useDom } from './setup.ts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { registerUser } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { answerTrpc } from './trpc-fake.ts';

/**
 * Issue 15, the web client's side of external sign-in: the authentication dialog, the oauth route's
 * decisions (spec §4, §5) and the linked credentials on /me. The real server answers everything except
 * the calls faked below (the providers' answers and what depends on them), so the screens' decisions
 * are checked whatever providers the test server configures.
 */
useDom();
const { act, cleanup, fireEvent, waitFor, within } = await import('@testing-library/react');
const { openApp } = await import('./app-harness.tsx');
const { setApiOrigin, setBearerToken } = await import('../../src/client/lib/api.ts');
const { externalAuthStorageKey } = await import('../../src/client/lib/auth/external-auth.ts');
const { setLanguage } = await import('../../src/client/lib/i18n/index.ts');

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const body = () => within(document.body);
/** The services dialog once the instance has named its services (until then it says it is loading). */
async function servicesDialog(): Promise<HTMLElement> {
  const dialog = await body().findByRole('dialog', { name: 'Choose a service' });
  await waitFor(() => expect(dialog.querySelector('.dialog_body[aria-busy="true"]')).toBeNull());
  return dialog;
}
const path = () => location.pathname + location.search;

type Call = { method: string; path: string; query: Record<string, string>; body: unknown };
type Fake = (call: Call) => { status?: number; json: unknown } | undefined;

const realFetch = globalThis.fetch;
let calls: Call[] = [];
let fake: Fake = () => undefined;
let providers: string[] = [];

/**
 * Every request goes to the test server except what `fake` answers; the instance info gains the
 * configured providers (`providers`), as a server with provider settings would send them.
 */
function installFetch() {
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    // The screens' tRPC calls, read as the REST calls of their operations (trpc-fake.ts).
    const answered = await answerTrpc(url, init, (call) => {
      const answer = fake(call as Call);
      if (answer) calls.push(call as Call);
      return answer;
    }, (single, options) => globalThis.fetch(single, options));
    if (answered) return answered;
    if (url.pathname.startsWith('/api/')) {
      const text = typeof init?.body === 'string' ? init.body : undefined;
      const call: Call = { method, path: url.pathname.slice(4), query: Object.fromEntries(url.searchParams), body: text ? JSON.parse(text) : undefined };
      const answer = fake(call);
      if (answer) {
        calls.push(call);
        return new Response(JSON.stringify(answer.json), { status: answer.status ?? 200, headers: { 'content-type': 'application/json' } });
      }
    }
    const response = await realFetch(input, init);
    if (url.pathname.startsWith('/trpc/') && url.pathname.includes('instance.info')) {
      const procedures = url.pathname.slice('/trpc/'.length).split(',');
      const json = (await response.json()) as unknown;
      const items = Array.isArray(json) ? json : [json];
      procedures.forEach((name, index) => {
        const data = (items[index] as { result?: { data?: Record<string, unknown> } } | undefined)?.result?.data;
        // As a server does: every configured provider links, those that are not link-only (itch.io) also sign in.
        if (name === 'instance.info' && data) {
          data.signInProviders = providers.filter((provider) => provider !== 'itch');
          data.linkProviders = providers;
        }
      });
      return new Response(JSON.stringify(json), { status: response.status, headers: { 'content-type': 'application/json' } });
    }
    return response;
  }) as typeof fetch;
}

beforeEach(() => {
  setBearerToken(null);
  setApiOrigin(server.url);
  calls = [];
  fake = () => undefined;
  providers = ['steam', 'github', 'gitlab', 'itch', 'twitch', 'discord'];
  installFetch();
});
afterEach(() => {
  globalThis.fetch = realFetch;
});


function store(value: Record<string, string>) {
  localStorage.setItem(externalAuthStorageKey, JSON.stringify(value));
}

/** The session of a real user of the test server, as POST /users/auth would answer it. */
async function sessionOf(token: string): Promise<unknown> {
  const response = await server.fetch('/api/auth/session', { token });
  return response.json();
}

describe('authentication dialog', () => {
  test('only the configured providers, each with its mark and name', async () => {
    providers = ['discord', 'github'];
    openApp('/login');
    const other = await body().findByRole('button', { name: 'Sign in with another service' });
    act(() => fireEvent.click(other));
    const dialog = await servicesDialog();
    const buttons = within(dialog).getAllByRole('button', { name: /^Continue with / });
    // The table's order (app-info.ts), not the configuration's.
    expect(buttons.map((button) => button.textContent)).toEqual(['Continue with GitHub', 'Continue with Discord']);
    for (const button of buttons) {
      const mark = button.querySelector('svg.provider_mark');
      expect(mark?.getAttribute('aria-hidden')).toBe('true');
      expect(button.querySelector('bdi')?.textContent).toMatch(/^(GitHub|Discord)$/);
    }
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' })));
    await waitFor(() => expect(body().queryByRole('dialog')).toBeNull());
  });

  test('itch.io is offered for linking only: not in the sign-in dialog, in the link dialog with a note that it does not sign in', async () => {
    openApp('/login');
    const other = await body().findByRole('button', { name: 'Sign in with another service' });
    act(() => fireEvent.click(other));
    const signInDialog = await servicesDialog();
    expect(within(signInDialog).getAllByRole('button', { name: /^Continue with / }).map((button) => button.getAttribute('data-provider'))).toEqual(['steam', 'github', 'gitlab', 'twitch', 'discord']);
    expect(signInDialog.querySelector('.provider_note')).toBeNull();
    act(() => fireEvent.click(within(signInDialog).getByRole('button', { name: 'Cancel' })));
    await waitFor(() => expect(body().queryByRole('dialog')).toBeNull());
    cleanup();

    const user = await registerUser(server);
    fake = (call) => (call.path === '/users/me/credentials' ? { json: [] } : undefined);
    openApp('/me', user.token);
    const link = await body().findByRole('button', { name: 'Link another account' });
    act(() => fireEvent.click(link));
    const linkDialog = await servicesDialog();
    expect(within(linkDialog).getAllByRole('button', { name: /^Continue with / }).map((button) => button.getAttribute('data-provider'))).toEqual(['steam', 'github', 'gitlab', 'itch', 'twitch', 'discord']);
    const itch = within(linkDialog).getByRole('button', { name: 'Continue with itch.io' });
    expect(document.getElementById(itch.getAttribute('aria-describedby')!)?.textContent).toBe('itch.io is only shown on your profile and store pages: it does not sign you in here.');
    expect(linkDialog.querySelectorAll('.provider_note')).toHaveLength(1);
  });

  test('no provider configured: the sign-in screens offer no other service', async () => {
    providers = [];
    openApp('/register');
    await body().findByRole('heading', { level: 1, name: 'Create an account' });
    // Give the instance info time to arrive: the button must still be absent.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(body().queryByRole('button', { name: 'Sign in with another service' })).toBeNull();
  });

  test('a failing start shows the error; a second pick while pending is ignored', async () => {
    fake = (call) => (call.path === '/auth/external/start' ? { status: 502, json: { code: 'not_supported', message: 'provider down' } } : undefined);
    openApp('/login');
    const other = await body().findByRole('button', { name: 'Sign in with another service' });
    act(() => fireEvent.click(other));
    const dialog = await servicesDialog();
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Continue with GitHub' })));
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Continue with Steam' })));
    const error = await body().findByRole('alertdialog', { name: 'Error' });
    expect(within(error).getByText('Error: not supported.')).toBeTruthy();
    expect(calls.filter((call) => call.path === '/auth/external/start')).toHaveLength(1);
    expect(localStorage.getItem(externalAuthStorageKey)).toBeNull();
    act(() => fireEvent.click(within(error).getByRole('button', { name: 'OK' })));
    await waitFor(() => expect(body().queryByRole('alertdialog')).toBeNull());
  });

  test('start keeps token, return page and intent, says it is redirecting, and posts the hidden form', async () => {
    let submitted: HTMLFormElement | undefined;
    const realSubmit = HTMLFormElement.prototype.submit;
    HTMLFormElement.prototype.submit = function (this: HTMLFormElement) {
      submitted = this;
    };
    try {
      fake = (call) =>
        call.path === '/auth/external/start'
          ? { json: { url: 'https://provider.example/authorize', token: 'start-token', postParams: [{ name: 'a', value: '1' }, { name: 'b', value: 'two' }] } }
          : undefined;
      sessionStorage.setItem('returnTo', '/store/p1?from=x');
      openApp('/register');
      const other = await body().findByRole('button', { name: 'Sign in with another service' });
      act(() => fireEvent.click(other));
      const dialog = await servicesDialog();
      expect(within(dialog).getByText('Create your account by signing in with one of these services.')).toBeTruthy();
      act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Continue with GitLab' })));
      await waitFor(() => expect(submitted).toBeDefined());
      expect(calls[0]?.query).toEqual({ provider: 'gitlab', intent: 'register' });
      expect(JSON.parse(localStorage.getItem(externalAuthStorageKey)!)).toEqual({ token: 'start-token', returnTo: '/store/p1?from=x', intent: 'register', provider: 'gitlab' });
      expect(submitted!.method.toUpperCase()).toBe('POST');
      expect(submitted!.action).toBe('https://provider.example/authorize');
      expect([...submitted!.querySelectorAll('input')].map((input) => `${input.type}:${input.name}=${input.value}`)).toEqual(['hidden:a=1', 'hidden:b=two']);
      expect(within(dialog).getByRole('status').textContent).toBe('Redirecting to GitLab…');
      submitted!.remove();
    } finally {
      HTMLFormElement.prototype.submit = realSubmit;
    }
  });
});

describe('oauth route (spec §4, §5)', () => {
  const finishAs = (reply: Record<string, unknown>, after: Fake = () => undefined): Fake => (call) =>
    call.path === '/auth/external/finish' ? { json: { hasUser: false, intent: 'login', token: 'finish-token', ...reply } } : after(call);

  async function expectFailure(text: string) {
    const alert = await body().findByRole('alert');
    expect(alert.textContent).toContain('The sign-in could not be finished');
    expect(alert.textContent).toContain(text);
    expect(body().getByRole('link', { name: 'Go to the home page' }).getAttribute('href')).toBe('/');
    expect(localStorage.getItem(externalAuthStorageKey)).toBeNull();
  }

  test('a state that is not the stored token: wrong_finish_auth_params on screen, nothing sent', async () => {
    store({ token: 'tok', returnTo: '/', intent: 'login', provider: 'github' });
    fake = finishAs({ hasUser: true });
    openApp('/oauth?code=c&state=someone-else');
    await expectFailure('This sign-in link is stale or was opened in another browser.');
    expect(body().getByRole('heading', { level: 1, name: 'Signing in' })).toBeTruthy();
    expect(document.title).toBe('Signing in - Cartridge');
    expect(calls).toHaveLength(0);
    // The spent code is not left in the address.
    expect(path()).toBe('/oauth');
  });

  test('a missing code: wrong_finish_auth_params', async () => {
    store({ token: 'tok', returnTo: '/', intent: 'login', provider: 'twitch' });
    openApp('/oauth?error=access_denied&state=tok');
    await expectFailure('Twitch did not send the sign-in back: it was cancelled or refused there.');
  });

  test('nothing stored: wrong_finish_auth_params', async () => {
    openApp('/oauth?code=c&state=tok');
    await expectFailure('This sign-in link is stale or was opened in another browser.');
  });

  test('an unsupported provider: unsupported_provider', async () => {
    store({ token: 'tok', returnTo: '/', intent: 'login', provider: 'myspace' });
    openApp('/oauth?code=c&state=tok');
    await expectFailure('Error: unsupported provider.');
  });

  test('an unknown intent: unknown_intent after finishing', async () => {
    store({ token: 'tok', returnTo: '/', intent: 'login', provider: 'discord' });
    fake = finishAs({ hasUser: false, intent: 'login' });
    openApp('/oauth?code=disc-code&state=tok');
    await expectFailure('Error: unknown intent.');
    expect(calls.map((call) => `${call.method} ${call.path} ${JSON.stringify(call.query)}`)).toEqual(['POST /auth/external/finish {"token":"tok","code":"disc-code"}']);
  });

  test('a refused finish shows the server error, and what to do when the reason is known', async () => {
    store({ token: 'tok', returnTo: '/', intent: 'login', provider: 'github' });
    fake = (call) => (call.path === '/auth/external/finish' ? { status: 401, json: { code: 'wrong_credentials', message: 'no account', details: { provider: 'github', reason: 'no_account' } } } : undefined);
    openApp('/oauth?code=c&state=tok');
    await expectFailure('No Cartridge account is linked to this GitHub account.');
    expect(body().getByRole('alert').querySelector('[data-error-code]')?.getAttribute('data-error-code')).toBe('wrong_credentials');
    expect(document.querySelector('.oauth_hint')?.textContent).toBe('No Cartridge account is linked to this GitHub account.');
    // Issue 29: the provider's refusal is not a password error.
    expect(body().getByRole('alert').textContent).not.toContain('password');
    expect(within(body().getByRole('main')).getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe('/login');
  });

  test('github, a known account: signs in, the session is refetched, back to the stored page', async () => {
    const user = await registerUser(server);
    const session = await sessionOf(user.token);
    store({ token: 'gh-tok', returnTo: '/docs/en/getting-started?x=1', intent: 'login', provider: 'github' });
    fake = finishAs({ hasUser: true, intent: 'login' }, (call) => (call.path === '/users/auth' ? { json: session } : undefined));
    openApp('/oauth?code=gh-code&state=gh-tok');
    await waitFor(() => expect(path()).toBe('/docs/en/getting-started?x=1'), { timeout: 10_000 });
    expect(await within(body().getByRole('banner')).findByText(`Signed in as ${user.name}`)).toBeTruthy();
    expect(calls.map((call) => `${call.method} ${call.path} ${JSON.stringify(call.query)}`)).toEqual(['POST /auth/external/finish {"token":"gh-tok","code":"gh-code"}', 'POST /users/auth {"token":"finish-token"}']);
    expect(localStorage.getItem(externalAuthStorageKey)).toBeNull();
  });

  test('itch, linking: code from the fragment, links as the signed-in user, then /me', async () => {
    const user = await registerUser(server);
    store({ token: 'itch-tok', returnTo: '/me', intent: 'link', provider: 'itch' });
    fake = finishAs({ hasUser: false, intent: 'link' }, (call) => {
      if (call.method === 'POST' && call.path === '/users/me/credentials') return { json: { provider: 'itch', name: '42', title: 'Leaf', profileUrl: null, profilePictureUrl: null, created: new Date().toISOString(), lastUsed: null, isPublic: false } };
      if (call.method === 'GET' && call.path === '/users/me/credentials') return { json: [] };
      return undefined;
    });
    openApp('/oauth#access_token=itch-access&state=itch-tok', user.token);
    await waitFor(() => expect(path()).toBe('/me'), { timeout: 10_000 });
    expect(calls.filter((call) => call.method === 'POST').map((call) => `${call.path} ${JSON.stringify(call.query)}`)).toEqual([
      '/auth/external/finish {"token":"itch-tok","code":"itch-access"}',
      '/users/me/credentials {"token":"finish-token"}',
    ]);
  });

  test('an itch.io sign-in refused as link-only says so, in the user\'s language', async () => {
    for (const [language, text] of [
      ['en', 'itch.io can only be linked to an account here, not used to sign in or register. Sign in another way, then link it on your profile page.'],
      ['fr', 'Ici, itch.io peut seulement être lié à un compte, pas servir à se connecter ni à s’inscrire. Connectez-vous autrement, puis liez-le depuis votre page de profil.'],
    ] as const) {
      setLanguage(language);
      store({ token: 'itch-tok', returnTo: '/', intent: 'login', provider: 'itch' });
      fake = (call) => (call.path === '/auth/external/finish' ? { status: 400, json: { code: 'wrong_provider', message: 'link only', details: { provider: 'itch', reason: 'link_only' } } } : undefined);
      openApp('/oauth#access_token=itch-access&state=itch-tok');
      await waitFor(() => expect(document.querySelector('.oauth_hint[data-reason="link_only"]')?.textContent).toBe(text), { timeout: 10_000 });
    }
    setLanguage('en');
  });

  test('steam, linking: every query parameter as the code, links as the signed-in user, then /me', async () => {
    const user = await registerUser(server);
    store({ token: 'st-tok', returnTo: '/me', intent: 'link', provider: 'steam' });
    fake = finishAs({ hasUser: false, intent: 'link' }, (call) => {
      if (call.method === 'POST' && call.path === '/users/me/credentials') return { json: { provider: 'steam', name: '7656', title: 'Gabe', profileUrl: null, profilePictureUrl: null, created: new Date().toISOString(), lastUsed: null, isPublic: false } };
      if (call.method === 'GET' && call.path === '/users/me/credentials') return { json: [] };
      return undefined;
    });
    const { authorizationHeaders } = await import('../../src/client/lib/api.ts');
    openApp('/oauth?state=st-tok&openid.mode=id_res&openid.claimed_id=https%3A%2F%2Fsteamcommunity.com%2Fopenid%2Fid%2F7656', user.token);
    await waitFor(() => expect(path()).toBe('/me'), { timeout: 10_000 });
    // A link keeps the same session: the bearer is still the user's.
    expect(authorizationHeaders().authorization).toBe(`Bearer ${user.token}`);
    const finish = calls.find((call) => call.path === '/auth/external/finish')!;
    expect(finish.query.token).toBe('st-tok');
    expect(JSON.parse(finish.query.code!)).toEqual({ state: 'st-tok', 'openid.mode': 'id_res', 'openid.claimed_id': 'https://steamcommunity.com/openid/id/7656' });
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual(['/auth/external/finish', '/users/me/credentials']);
    await body().findByRole('heading', { level: 1, name: 'Profile' });
  });

  test('reachable without signing in on an instance that requires it', async () => {
    const required = await startTestServer({ AUTH_REQUIRED: 'true' });
    try {
      setApiOrigin(required.url);
      openApp('/oauth?code=c&state=tok');
      await body().findByRole('heading', { level: 1, name: 'Signing in' });
      await expectFailure('This sign-in link is stale or was opened in another browser.');
      expect(body().queryByRole('heading', { level: 1, name: 'Sign in required' })).toBeNull();
    } finally {
      cleanup();
      await required.stop();
    }
  });
});

describe('linked credentials on /me', () => {
  const created = '2030-01-02T03:04:05.000Z';
  const github = { provider: 'github', name: '583231', title: 'octocat', profileUrl: 'https://github.com/octocat', profilePictureUrl: 'https://avatars.example/octocat.png', created, lastUsed: created, isPublic: false };
  const steam = { provider: 'steam', name: '7656', title: 'Gabe', profileUrl: 'javascript:alert(1)', profilePictureUrl: null, created, lastUsed: null, isPublic: true };
  const password = { provider: 'password', name: 'ada', title: 'ada', profileUrl: null, profilePictureUrl: null, created, lastUsed: created, isPublic: false };

  test('each credential with its picture, link, provider, dates and public box; the password has neither picture nor box', async () => {
    const user = await registerUser(server);
    let list = [password, github, steam];
    fake = (call) => {
      if (call.path !== '/users/me/credentials') return undefined;
      if (call.method === 'GET') return { json: list };
      if (call.method === 'PATCH') {
        list = list.map((item) => (item.provider === call.query.provider && item.name === call.query.name ? { ...item, ...(call.body as object) } : item));
        return { json: list.find((item) => item.provider === call.query.provider)! };
      }
      return undefined;
    };
    openApp('/me', user.token);
    const section = (await body().findByRole('heading', { level: 2, name: 'Linked credentials' })).closest('section')!;
    const rows = await waitFor(() => {
      const items = section.querySelectorAll('li.credential_item');
      expect(items).toHaveLength(3);
      return [...items] as HTMLElement[];
    });
    const [passwordRow, githubRow, steamRow] = rows as [HTMLElement, HTMLElement, HTMLElement];
    expect(passwordRow.textContent).toContain('User name and password');
    expect(passwordRow.querySelector('img')).toBeNull();
    expect(within(passwordRow).queryByRole('checkbox')).toBeNull();
    expect(within(passwordRow).getByRole('button', { name: 'Unlink: User name and password ada' })).toBeTruthy();

    expect(githubRow.querySelector('img')?.getAttribute('src')).toBe('https://avatars.example/octocat.png');
    expect(within(githubRow).getByRole('link', { name: 'octocat' }).getAttribute('href')).toBe('https://github.com/octocat');
    expect(githubRow.querySelector('.credential_provider')?.textContent?.trim()).toBe('GitHub');
    expect(within(githubRow).getByText('Added')).toBeTruthy();
    expect(within(githubRow).getByText('Last used')).toBeTruthy();
    expect(githubRow.querySelector('svg.provider_mark_github')).toBeTruthy();

    // A profile address that is not http(s) is not a link; no last use is 'Never'.
    expect(within(steamRow).queryByRole('link')).toBeNull();
    expect(within(steamRow).getByText('Never')).toBeTruthy();
    expect((within(steamRow).getByRole('checkbox', { name: 'Show on store pages: Steam Gabe' }) as HTMLInputElement).checked).toBe(true);

    const box = within(githubRow).getByRole('checkbox', { name: 'Show on store pages: GitHub octocat' }) as HTMLInputElement;
    expect(box.checked).toBe(false);
    act(() => fireEvent.click(box));
    await waitFor(() => expect(calls.find((call) => call.method === 'PATCH')).toBeDefined());
    expect(calls.find((call) => call.method === 'PATCH')).toMatchObject({ query: { provider: 'github', name: '583231' }, body: { isPublic: true } });
    await waitFor(() => expect(box.checked).toBe(true));
    // With a password sign-in, there is no form to add one. (Found anew: the list refetches after the
    // change, and its section may be drawn again meanwhile.)
    expect(await body().findByRole('button', { name: 'Link another account' })).toBeTruthy();
    expect(body().queryByRole('button', { name: 'Add a password sign-in' })).toBeNull();
  });

  test('unlink asks first; the refusal of the last way in is explained, not a raw error', async () => {
    const user = await registerUser(server);
    fake = (call) => {
      if (call.path !== '/users/me/credentials') return undefined;
      if (call.method === 'GET') return { json: [github] };
      if (call.method === 'DELETE') return { status: 400, json: { code: 'bad_param', message: 'last way in', details: { reason: 'last_sign_in_method' } } };
      return undefined;
    };
    openApp('/me', user.token);
    const unlink = await body().findByRole('button', { name: 'Unlink: GitHub octocat' });
    act(() => fireEvent.click(unlink));
    const confirm = await body().findByRole('alertdialog', { name: 'Unlink this sign-in?' });
    expect(confirm.textContent).toContain('You will no longer be able to sign in with the GitHub account octocat.');
    expect(document.activeElement?.textContent).toBe('Cancel');
    act(() => fireEvent.click(within(confirm).getByRole('button', { name: 'Unlink' })));
    const refused = await body().findByRole('dialog', { name: 'This sign-in cannot be removed' });
    expect(refused.textContent).toContain('It is your only way to sign in. Link another account or add a password sign-in first.');
    expect(calls.find((call) => call.method === 'DELETE')?.query).toEqual({ provider: 'github', name: '583231' });
    act(() => fireEvent.click(within(refused).getByRole('button', { name: 'OK' })));
    await waitFor(() => expect(body().queryByRole('dialog')).toBeNull());
  });

  test('unlink, confirmed and accepted: the list is loaded again', async () => {
    const user = await registerUser(server);
    let list = [password, github];
    fake = (call) => {
      if (call.path !== '/users/me/credentials') return undefined;
      if (call.method === 'GET') return { json: list };
      if (call.method === 'DELETE') {
        list = list.filter((item) => item.provider !== call.query.provider);
        return { json: { ok: true } };
      }
      return undefined;
    };
    openApp('/me', user.token);
    const unlink = await body().findByRole('button', { name: 'Unlink: GitHub octocat' });
    act(() => fireEvent.click(unlink));
    const confirmUnlink = within(await body().findByRole('alertdialog')).getByRole('button', { name: 'Unlink' });
    act(() => fireEvent.click(confirmUnlink));
    // The rows are found by their data (a role query over the whole page is slow under happy-dom), polled
    // plainly: the refetch after the dialog closes changes nothing waitFor's observer reliably hears here.
    for (let tries = 0; tries < 100 && document.querySelector('li.credential_item[data-provider="github"]'); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(document.querySelectorAll('li.credential_item')).toHaveLength(1);
    expect(document.querySelector('li.credential_item[data-provider="password"]')).toBeTruthy();
    expect(calls.find((call) => call.method === 'DELETE')?.query).toEqual({ provider: 'github', name: '583231' });
  });

  test('link another account opens the dialog with intent link, returning to /me', async () => {
    const user = await registerUser(server);
    fake = (call) => {
      if (call.path === '/users/me/credentials') return { json: [password] };
      if (call.path === '/auth/external/start') return { json: { url: 'https://provider.example/authorize', token: 'link-token', postParams: [{ name: 'state', value: 'link-token' }] } };
      return undefined;
    };
    let submitted: HTMLFormElement | undefined;
    const realSubmit = HTMLFormElement.prototype.submit;
    HTMLFormElement.prototype.submit = function (this: HTMLFormElement) {
      submitted = this;
    };
    try {
      openApp('/me', user.token);
      const link = await body().findByRole('button', { name: 'Link another account' });
      act(() => fireEvent.click(link));
      const dialog = await servicesDialog();
      expect(within(dialog).getByText('Link your account on one of these services to sign in with it too.')).toBeTruthy();
      act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Continue with Twitch' })));
      await waitFor(() => expect(submitted).toBeDefined());
      expect(JSON.parse(localStorage.getItem(externalAuthStorageKey)!)).toEqual({ token: 'link-token', returnTo: '/me', intent: 'link', provider: 'twitch' });
      expect(calls.find((call) => call.path === '/auth/external/start')?.query).toEqual({ provider: 'twitch', intent: 'link' });
      submitted!.remove();
    } finally {
      HTMLFormElement.prototype.submit = realSubmit;
    }
  });

  test('add a password sign-in: the registration rules are checked first, then it is sent', async () => {
    const user = await registerUser(server);
    let list: unknown[] = [github];
    fake = (call) => {
      if (call.path === '/users/me/credentials' && call.method === 'GET') return { json: list };
      if (call.path === '/users/me/password') {
        list = [password, github];
        return { json: password };
      }
      return undefined;
    };
    openApp('/me', user.token);
    const open = await body().findByRole('button', { name: 'Add a password sign-in' });
    act(() => fireEvent.click(open));
    const form = await body().findByRole('form', { name: 'Add a password sign-in' });
    fireEvent.change(within(form).getByLabelText('User name'), { target: { value: 'ada' } });
    fireEvent.change(within(form).getByLabelText('Password'), { target: { value: '12345678' } });
    act(() => fireEvent.submit(form));
    expect((await within(form).findByRole('alert')).textContent).toBe('The password cannot be one character repeated or a simple sequence such as 12345678.');
    expect(within(form).getByLabelText('Password').getAttribute('aria-invalid')).toBe('true');
    expect(calls.filter((call) => call.path === '/users/me/password')).toHaveLength(0);

    fireEvent.change(within(form).getByLabelText('Password'), { target: { value: 'ada' } });
    fireEvent.change(within(form).getByLabelText('Password'), { target: { value: 'correct horse battery' } });
    act(() => fireEvent.submit(form));
    await waitFor(() => expect(calls.find((call) => call.path === '/users/me/password')?.body).toEqual({ name: 'ada', password: 'correct horse battery' }));
    for (let tries = 0; tries < 100 && document.querySelector('form.credential_password_form'); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(document.querySelector('form.credential_password_form')).toBeNull();
    expect(document.querySelector('li.credential_item[data-provider="password"]')?.textContent).toContain('User name and password');
    expect(body().queryByRole('button', { name: 'Add a password sign-in' })).toBeNull();
  });
});

describe('store page', () => {
  test("the owner's public credentials: mark, provider name and the profile link", async () => {
    const { createProject, makePublic } = await import('../support/projects.ts');
    const { newId } = await import('../../src/server/db/ids.ts');
    const { credentials } = await import('../../src/server/db/schema/index.ts');
    const owner = await registerUser(server);
    const project = await createProject(server, owner, 'Mark Check');
    await server.deps.db.insert(credentials).values([
      { id: newId(), userId: owner.id, provider: 'github', name: 'markdev', title: 'Mark on GitHub', profileUrl: 'https://github.com/markdev', isPublic: true },
      { id: newId(), userId: owner.id, provider: 'itch', name: 'markitch', title: 'Mark on itch', profileUrl: null, isPublic: true },
      { id: newId(), userId: owner.id, provider: 'discord', name: 'secret', title: 'Hidden', isPublic: false },
    ]);
    await makePublic(server, project, owner);
    openApp(`/store/${project.id}`);
    const list = await body().findByRole('list', { name: `Public profiles of ${owner.name}` });
    const items = within(list).getAllByRole('listitem');
    expect(items.map((item) => item.getAttribute('data-provider')).sort()).toEqual(['github', 'itch']);
    const githubItem = items.find((item) => item.getAttribute('data-provider') === 'github')!;
    expect(githubItem.querySelector('svg.provider_mark_github')?.getAttribute('aria-hidden')).toBe('true');
    expect(githubItem.querySelector('.store_credential_provider')?.textContent).toBe('GitHub');
    const link = within(githubItem).getByRole('link', { name: 'Mark on GitHub' });
    expect(link.getAttribute('href')).toBe('https://github.com/markdev');
    expect(link.getAttribute('rel')).toBe('ugc nofollow noopener');
    const itchItem = items.find((item) => item.getAttribute('data-provider') === 'itch')!;
    expect(itchItem.querySelector('.store_credential_provider')?.textContent).toBe('itch.io');
    expect(within(itchItem).queryByRole('link')).toBeNull();
    expect(itchItem.textContent).toContain('Mark on itch');
  });
});
