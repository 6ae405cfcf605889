import { useDom } from './setup.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { registerUser } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

useDom();
const { act, fireEvent, waitFor, within } = await import('@testing-library/react');
const { openApp } = await import('./app-harness.tsx');
const { setApiOrigin, setBearerToken } = await import('../../src/client/lib/api.ts');
const { setLanguage } = await import('../../src/client/lib/i18n/index.ts');

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());
beforeEach(() => {
  setBearerToken(null);
  setApiOrigin(server.url);
  setLanguage('en');
});

const body = () => within(document.body);
const path = () => location.pathname + location.search;

/** Renders the whole client at `url`, as a visitor or (token) as a signed-in user. */

describe('routing and screens', () => {
  test('visitor home: description, sign-in links, footer docs link, title and page class', async () => {
    openApp('/');
    const heading = await body().findByRole('heading', { level: 1, name: 'Your games, hosted by you' });
    expect(heading.closest('main')?.className).toContain('page_home');
    expect(document.title).toBe('Home - Cartridge');
    expect(body().getAllByRole('link', { name: 'Sign in' }).length).toBeGreaterThan(0);
    expect(body().getByRole('link', { name: 'Create an account' }).getAttribute('href')).toBe('/register');
    const footer = body().getByRole('contentinfo');
    expect(within(footer).getByRole('link', { name: 'Documentation' }).getAttribute('href')).toBe('/docs/en/');
    // No SOCIAL_LINKS configured: the footer has the docs link only (tests/e2e/branding.test.ts sets some).
    expect(within(footer).getAllByRole('link')).toHaveLength(1);
    expect((body().getByRole('combobox', { name: 'Language: English' }) as HTMLSelectElement).value).toBe('en');
    expect(body().getByRole('combobox', { name: 'Language: English' }).textContent).toContain('en');
  });

  test.each(['/no/such/page', '/me/extra', '/docs', '/%E0%A4%A', '/projects/x%'])('not found: %s', async (url) => {
    openApp(url);
    await body().findByRole('heading', { level: 1, name: 'Page not found' });
    expect(document.title).toBe('Page not found - Cartridge');
    const main = body().getByRole('main');
    expect(main.className).toContain('page_not_found');
    for (const cause of ['it has been deleted,', 'you have no access to it,', 'or the link was copied badly.']) expect(within(main).getByText(cause)).toBeTruthy();
    const crumbs = within(main).getByRole('navigation', { name: 'Breadcrumb' });
    expect(within(crumbs).getByRole('link', { name: 'Home' }).getAttribute('href')).toBe('/');
    expect(within(crumbs).getByText('Page not found').getAttribute('aria-current')).toBe('page');
  });

  test('docs: markdown rendered; English shown with a notice for a missing language', async () => {
    openApp('/docs/en/');
    await body().findByRole('heading', { level: 1, name: 'Cartridge documentation' });
    expect(body().queryByText(/not available in your language/)).toBeNull();
    expect(body().getByRole('link', { name: 'Getting started' }).getAttribute('href')).toBe('/docs/en/getting-started');
    expect(document.title).toBe('Cartridge documentation - Cartridge');
    act(() => fireEvent.click(body().getByRole('link', { name: 'Getting started' })));
    await body().findByRole('heading', { level: 1, name: 'Getting started' });
    expect(path()).toBe('/docs/en/getting-started');

    openApp('/docs/xx/getting-started');
    await waitFor(() => expect(body().getAllByRole('heading', { level: 1, name: 'Getting started' }).length).toBeGreaterThan(0));
    expect(body().getByRole('note').textContent).toBe('This page is not available in your language yet, so it is shown in English.');
  });

  test('docs: switching the language moves to that language, English with the notice and left-to-right', async () => {
    openApp('/docs/en/getting-started');
    await body().findByRole('heading', { level: 1, name: 'Getting started' });
    act(() => void fireEvent.change(body().getByRole('combobox', { name: 'Language: English' }), { target: { value: 'ar' } }));
    await waitFor(() => expect(path()).toBe('/docs/ar/getting-started'));
    expect(document.documentElement.dir).toBe('rtl');
    expect(await body().findByRole('note')).toBeTruthy();
    const article = await waitFor(() => document.querySelector('article.markdown') as HTMLElement);
    expect(article.getAttribute('lang')).toBe('en');
    expect(article.getAttribute('dir')).toBe('ltr');
  });

  test('docs: an unknown page is the not-found page', async () => {
    openApp('/docs/en/no-such-page');
    await body().findByRole('heading', { level: 1, name: 'Page not found' });
  });

  test('store index and experiment pages', async () => {
    // The store index (issue 19) replaced the spec's 'in development' page at /store.
    openApp('/store');
    await body().findByRole('heading', { level: 1, name: 'Store' });
    expect(body().getByRole('main').className).toContain('page_store_index');
    openApp('/experiment');
    await body().findByRole('heading', { level: 1, name: 'Experiment' });
    expect(body().getByTestId('experiment-size').textContent).toBe('1.5 KiB');
    expect(body().getByTestId('experiment-plural').textContent).toBe('1 item');
    fireEvent.change(body().getByLabelText('Count'), { target: { value: '2' } });
    expect(body().getByTestId('experiment-plural').textContent).toBe('2 items');
    fireEvent.change(body().getByLabelText('Size in bytes'), { target: { value: '999' } });
    expect(body().getByTestId('experiment-size').textContent).toBe('999 B');
  });
});

describe('language and theme', () => {
  test('switching the language re-renders the text and sets <html lang dir>', async () => {
    openApp('/');
    await body().findByRole('heading', { level: 1 });
    const english = body().getByRole('heading', { level: 1 }).textContent;
    act(() => void fireEvent.change(body().getByRole('combobox', { name: 'Language: English' }), { target: { value: 'de' } }));
    await waitFor(() => expect(document.documentElement.lang).toBe('de'));
    expect(localStorage.getItem('lang')).toBe('de');
    await waitFor(() => expect(body().getByRole('heading', { level: 1 }).textContent).not.toBe(english));
    // The switcher's own label is German now: it is the first select of the header.
    act(() => void fireEvent.change(body().getAllByRole('combobox')[0]!, { target: { value: 'ar' } }));
    await waitFor(() => expect(document.documentElement.dir).toBe('rtl'));
    act(() => void setLanguage('en'));
    await waitFor(() => expect(document.documentElement.dir).toBe('ltr'));
  });

  test('the theme choice is stored and applied; unknown stored values mean system', async () => {
    const { readStoredTheme } = await import('../../src/client/lib/theme/theme.ts');
    localStorage.setItem('theme', 'purple');
    expect(readStoredTheme()).toBe('system');
    openApp('/');
    const select = (await body().findByRole('combobox', { name: 'Theme' })) as HTMLSelectElement;
    expect(select.value).toBe('system');
    act(() => void fireEvent.change(select, { target: { value: 'dark' } }));
    expect(localStorage.getItem('theme')).toBe('dark');
    expect(document.documentElement.dataset.theme).toBe('dark');
    act(() => void fireEvent.change(select, { target: { value: 'light' } }));
    expect(document.documentElement.dataset.theme).toBe('light');
  });
});

describe('auth', () => {
  test('register from a protected page, land back on it (path and query), sign out to /', async () => {
    openApp('/me?tab=tokens');
    await body().findByRole('heading', { level: 1, name: 'Sign in' });
    expect(path()).toBe('/login');
    act(() => fireEvent.click(body().getByRole('link', { name: 'Create one' })));
    await body().findByRole('heading', { level: 1, name: 'Create an account' });
    const name = `ui${Date.now().toString(36)}`;
    fireEvent.change(body().getByLabelText('User name'), { target: { value: name } });
    fireEvent.change(body().getByLabelText('Password'), { target: { value: 'password-123' } });
    fireEvent.change(body().getByLabelText('Display name (optional)'), { target: { value: 'Pixel Smith' } });
    act(() => fireEvent.click(body().getByRole('button', { name: 'Create account' })));
    await body().findByRole('heading', { level: 1, name: 'Profile' }, { timeout: 10_000 });
    expect(path()).toBe('/me?tab=tokens');
    expect(await body().findByTestId('profile-title')).toHaveProperty('textContent', 'Pixel Smith');

    act(() => fireEvent.click(body().getByRole('button', { name: 'Sign out' })));
    await body().findByRole('heading', { level: 1, name: 'Your games, hosted by you' });
    expect(path()).toBe('/');
  });

  test('a password equal to the display name is refused on the form, in the user\'s language, and no account is made', async () => {
    for (const [language, text] of [
      ['en', 'The password cannot be your user name or your display name.'],
      ['de', 'Das Passwort darf weder dein Benutzername noch dein Anzeigename sein.'],
    ] as const) {
      setLanguage(language);
      openApp('/register');
      const name = `ui${language}${Date.now().toString(36)}`;
      await waitFor(() => expect(document.querySelector('form input[name="title"]')).not.toBeNull());
      const byName = (field: string) => document.querySelector<HTMLInputElement>(`form input[name="${field}"]`)!;
      fireEvent.change(byName('name'), { target: { value: name } });
      fireEvent.change(byName('password'), { target: { value: ' pixel SMITH ' } });
      fireEvent.change(byName('title'), { target: { value: 'Pixel Smith' } });
      act(() => fireEvent.submit(byName('name').form!));
      expect((await body().findByRole('alert')).textContent).toBe(text);
      const signIn = await server.fetch('/api/auth/password', { method: 'POST', json: { name, password: ' pixel SMITH ' } });
      expect((await signIn.json()).code).toBe('wrong_credentials');
    }
  });

  test('the header sign-in link returns to the page it was used on', async () => {
    const user = await registerUser(server);
    openApp('/docs/en/getting-started?from=header');
    await body().findByRole('heading', { level: 1, name: 'Getting started' });
    const header = body().getByRole('banner');
    act(() => fireEvent.click(within(header).getByRole('link', { name: 'Sign in' })));
    await body().findByRole('heading', { level: 1, name: 'Sign in' });
    fireEvent.change(body().getByLabelText('User name'), { target: { value: user.name } });
    fireEvent.change(body().getByLabelText('Password'), { target: { value: user.password } });
    act(() => fireEvent.click(within(body().getByRole('main')).getByRole('button', { name: 'Sign in' })));
    await waitFor(() => expect(path()).toBe('/docs/en/getting-started?from=header'));
    expect(await within(body().getByRole('banner')).findByText(`Signed in as ${user.name}`)).toBeTruthy();
  });

  test('wrong credentials show the catalogued error on screen', async () => {
    openApp('/login');
    await body().findByRole('heading', { level: 1, name: 'Sign in' });
    fireEvent.change(body().getByLabelText('User name'), { target: { value: 'nobody-here' } });
    fireEvent.change(body().getByLabelText('Password'), { target: { value: 'password-123' } });
    act(() => fireEvent.click(body().getByRole('button', { name: 'Sign in' })));
    expect((await body().findByRole('alert')).textContent).toBe('Error: wrong user name or password.');
  });

  test('an instance with no sign-in provider configured offers no other service', async () => {
    // The test server configures none; tests/client/external-auth-ui.test.tsx covers the dialog with providers.
    openApp('/login');
    await body().findByRole('heading', { level: 1, name: 'Sign in' });
    await waitFor(async () => expect((await (await fetch(`${server.url}/api/instance`)).json()).signInProviders).toEqual([]));
    expect(body().queryByRole('button', { name: 'Sign in with another service' })).toBeNull();
  });

  test('a session that cannot be fetched is the error status; Retry fetches it again', async () => {
    const realFetch = globalThis.fetch;
    let failing = true;
    globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
      failing ? Promise.reject(new TypeError('network down')) : realFetch(input, init)) as typeof fetch;
    try {
      openApp('/');
      await body().findByRole('heading', { level: 1, name: 'Could not check your session' }, { timeout: 10_000 });
      expect(body().getByRole('alert').textContent).toContain('Error: the server could not be reached.');
      failing = false;
      act(() => fireEvent.click(body().getByRole('button', { name: 'Retry' })));
      await body().findByRole('heading', { level: 1, name: 'Your games, hosted by you' });
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});

describe('profile', () => {
  test('rename, create a token shown once, delete it, with dialogs', async () => {
    const user = await registerUser(server);
    openApp('/me', user.token);
    await body().findByRole('heading', { level: 1, name: 'Profile' });
    expect(document.title).toBe('Profile - Cartridge');
    // A password account's one way in: its password credential (no picture, no public box).
    const passwordRow = await waitFor(() => {
      const row = document.querySelector('li.credential_item[data-provider="password"]');
      if (!row) throw new Error('no password credential listed');
      return row;
    });
    expect(passwordRow.textContent).toContain('User name and password');
    expect(await body().findByText('No deploy credentials yet.')).toBeTruthy();
    expect(await body().findByText('1 session')).toBeTruthy();
    expect(await body().findByText('You have no API tokens yet.')).toBeTruthy();

    const renameButton = await body().findByRole('button', { name: 'Rename' });
    act(() => fireEvent.click(renameButton));
    let dialog = await body().findByRole('dialog', { name: 'Rename profile' });
    fireEvent.change(within(dialog).getByLabelText('New display name'), { target: { value: 'Renamed Person' } });
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Rename' })));
    await waitFor(() => expect(body().getByTestId('profile-title').textContent).toBe('Renamed Person'));

    fireEvent.change(body().getByLabelText('Token name'), { target: { value: 'CI' } });
    act(() => fireEvent.click(body().getByLabelText('Expires on a date')));
    fireEvent.change(await body().findByLabelText('Expiry date'), { target: { value: '2099-12-31' } });
    act(() => fireEvent.click(body().getByRole('button', { name: 'Create API token' })));
    dialog = await body().findByRole('dialog', { name: 'API token created' }, { timeout: 10_000 });
    const token = (within(dialog).getByRole('textbox') as HTMLInputElement).value;
    expect(token).toMatch(/^ct_/);
    const me = await server.fetch('/api/users/me', { token });
    expect(me.status).toBe(200);
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'OK' })));
    expect(await body().findByText('1 API token')).toBeTruthy();
    expect(body().getByText('CI')).toBeTruthy();
    // Issue 29: a token is created, not started, and its creation is no use (listed before its first request).
    const row = document.querySelector('li[data-token-id]')!;
    expect([...row.querySelectorAll('dt')].map((term) => term.textContent)).toEqual(['Created', 'Last used', 'Expires']);
    expect(row.querySelectorAll('dd')[1]!.textContent).toBe('Never used');
    expect(row.querySelectorAll('dd')[1]!.querySelector('time')).toBeNull();
    // The browser session still says Started, with the time of its sign-in as its last use.
    const sessionRow = (await body().findByRole('heading', { level: 2, name: 'Sessions' })).closest('section')!.querySelector('li')!;
    expect(sessionRow.querySelector('dt')?.textContent).toBe('Started');
    expect(sessionRow.querySelectorAll('dd')[1]!.querySelector('time')).toBeTruthy();

    act(() => fireEvent.click(body().getByRole('button', { name: 'Delete: CI' })));
    dialog = await body().findByRole('alertdialog', { name: 'Delete this API token?' });
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' })));
    expect(await body().findByText('You have no API tokens yet.')).toBeTruthy();
    expect((await server.fetch('/api/users/me', { token })).status).toBe(401);
  });

  test('delete the account after a danger confirmation', async () => {
    const user = await registerUser(server);
    openApp('/me', user.token);
    const deleteButton = await body().findByRole('button', { name: 'Delete account' });
    act(() => fireEvent.click(deleteButton));
    let dialog = await body().findByRole('alertdialog', { name: 'Delete your account?' });
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' })));
    await waitFor(() => expect(body().queryByRole('alertdialog')).toBeNull());
    expect((await server.fetch('/api/users/me', { token: user.token })).status).toBe(200);

    act(() => fireEvent.click(body().getByRole('button', { name: 'Delete account' })));
    dialog = await body().findByRole('alertdialog', { name: 'Delete your account?' });
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Delete account' })));
    await body().findByRole('heading', { level: 1, name: 'Your games, hosted by you' });
    expect(path()).toBe('/');
    expect((await server.fetch('/api/users/me', { token: user.token })).status).toBe(401);
  });

  test('a session revoked elsewhere: the next call fails wrong_auth and the app signs out', async () => {
    const user = await registerUser(server);
    openApp('/me', user.token);
    const renameButton = await body().findByRole('button', { name: 'Rename' });
    const [session] = (await (await server.fetch('/api/users/me/sessions', { token: user.token })).json()) as { id: string }[];
    expect((await server.fetch(`/api/users/me/sessions/${session!.id}`, { method: 'DELETE', token: user.token })).status).toBe(200);
    act(() => fireEvent.click(renameButton));
    const dialog = await body().findByRole('dialog', { name: 'Rename profile' });
    fireEvent.change(within(dialog).getByLabelText('New display name'), { target: { value: 'Too late' } });
    act(() => fireEvent.click(within(dialog).getByRole('button', { name: 'Rename' })));
    const error = await body().findByRole('alertdialog', { name: 'Error' });
    expect(within(error).getByText('Error: wrong authentication.')).toBeTruthy();
    await waitFor(() => expect(path()).toBe('/login'));
    act(() => fireEvent.click(within(error).getByRole('button', { name: 'OK' })));
    await body().findByRole('heading', { level: 1, name: 'Sign in' });
  });

  test('signed-in home links to projects and profile', async () => {
    const user = await registerUser(server);
    openApp('/', user.token);
    await body().findByRole('heading', { level: 1, name: `Welcome, ${user.name}` });
    expect(body().getByRole('link', { name: 'Your projects' }).getAttribute('href')).toBe('/projects');
    expect(body().getByRole('link', { name: 'Your profile' }).getAttribute('href')).toBe('/me');
  });
});

describe('an instance that requires sign-in', () => {
  let privateServer: TestServer;
  beforeAll(async () => {
    privateServer = await startTestServer({ AUTH_REQUIRED: 'true' });
  });
  afterAll(() => privateServer.stop());

  test('every page asks to sign in first, then shows the page', async () => {
    setApiOrigin(privateServer.url);
    const user = await registerUser(privateServer);
    openApp('/docs/en/');
    await body().findByRole('heading', { level: 1, name: 'Sign in required' });
    expect(path()).toBe('/docs/en/');
    fireEvent.change(body().getByLabelText('User name'), { target: { value: user.name } });
    fireEvent.change(body().getByLabelText('Password'), { target: { value: user.password } });
    act(() => fireEvent.click(body().getByRole('button', { name: 'Sign in' })));
    await body().findByRole('heading', { level: 1, name: 'Cartridge documentation' }, { timeout: 10_000 });
    expect(path()).toBe('/docs/en/');
  });
});
