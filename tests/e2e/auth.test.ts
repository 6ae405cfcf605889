import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { registerUser } from '../support/accounts.ts';
import { en, startE2E, visit, waitForScreen, type E2E } from './support/app.ts';

/** Spec §2, §4: password registration and sign-in, sign-out to '/', return to the page (path + query). */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

let counter = 0;
const newName = () => `e2e${Date.now().toString(36)}${++counter}`;

async function fillSignIn(page: Page, name: string, password: string): Promise<void> {
  await page.getByLabel(en('auth_user_name'), { exact: true }).fill(name);
  await page.getByLabel(en('auth_password'), { exact: true }).fill(password);
}

async function submitSignIn(page: Page): Promise<void> {
  await page.locator('form.auth_form').getByRole('button', { name: en('auth_sign_in_submit'), exact: true }).click();
}

function pathAndQuery(page: Page): string {
  const url = new URL(page.url());
  return url.pathname + url.search;
}

test('register, sign out to "/", sign in again', async () => {
  const { page, context } = await e2e.open();
  const name = newName();
  const password = 'correct horse battery';
  await visit(page, '/');
  expect(await page.locator('main h1').textContent()).toBe(en('home_heading'));

  // The visitor's home offers registration; it leads to the register screen.
  await page.getByRole('link', { name: en('home_register'), exact: true }).click();
  await waitForScreen(page, 'page_register');
  expect(new URL(page.url()).pathname).toBe('/register');
  expect(await page.title()).toBe(`${en('auth_register_title')} - Cartridge`);
  await fillSignIn(page, name, password);
  await page.getByLabel(en('auth_display_name'), { exact: true }).fill('Ada Lovelace');
  await page.locator('form.auth_form').getByRole('button', { name: en('auth_register_submit'), exact: true }).click();

  // Back home, signed in: links to projects and profile (spec §2 home).
  await page.locator('main h1', { hasText: en('home_welcome', { name: 'Ada Lovelace' }) }).waitFor({ timeout: 10_000 });
  expect(new URL(page.url()).pathname).toBe('/');
  await expect(page.locator('main').getByRole('link', { name: en('home_projects_link'), exact: true }).isVisible()).resolves.toBe(true);
  await expect(page.locator('main').getByRole('link', { name: en('home_profile_link'), exact: true }).isVisible()).resolves.toBe(true);

  // Sign out from another page: the session ends on the server and the app goes to '/'.
  await visit(page, '/docs/en/', 'page_docs');
  const cookiesBefore = await context.cookies();
  expect(cookiesBefore.length).toBeGreaterThan(0);
  await page.locator('header').getByRole('button', { name: en('nav_sign_out'), exact: true }).click();
  await page.locator('main h1', { hasText: en('home_heading') }).waitFor({ timeout: 10_000 });
  expect(pathAndQuery(page)).toBe('/');
  const session = await page.evaluate(async () => (await fetch('/api/auth/session')).json());
  expect(session.userInfo).toBeNull();

  // Sign in with the same credentials from the header link.
  await page.locator('header').getByRole('link', { name: en('nav_sign_in'), exact: true }).click();
  await waitForScreen(page, 'page_sign_in');
  expect(await page.title()).toBe(`${en('auth_sign_in_title')} - Cartridge`);
  await fillSignIn(page, name, password);
  await submitSignIn(page);
  await page.locator('main h1', { hasText: en('home_welcome', { name: 'Ada Lovelace' }) }).waitFor({ timeout: 10_000 });
  expect(pathAndQuery(page)).toBe('/');
  await context.close();
}, 30_000);

test('a signed-out visit to a deep page returns there, query included, after signing in', async () => {
  const user = await registerUser(e2e.server);
  const { page, context } = await e2e.open();

  // A page that needs a user sends the visitor to sign in and remembers where they were.
  await page.goto('/me?tab=tokens&x=%C3%A9', { waitUntil: 'domcontentloaded' });
  await waitForScreen(page, 'page_sign_in');
  expect(new URL(page.url()).pathname).toBe('/login');
  await fillSignIn(page, user.name, user.password);
  await submitSignIn(page);
  await page.locator('main#content.page_me').waitFor({ timeout: 10_000 });
  expect(pathAndQuery(page)).toBe('/me?tab=tokens&x=%C3%A9');
  await page.locator('[data-testid="profile-title"]').waitFor();
  expect(await page.locator('[data-testid="profile-title"]').textContent()).toBe(user.name);

  // The header's sign-in link from any page comes back to that page too.
  await page.locator('header').getByRole('button', { name: en('nav_sign_out'), exact: true }).click();
  await page.locator('main h1', { hasText: en('home_heading') }).waitFor({ timeout: 10_000 });
  await visit(page, '/docs/en/?from=e2e#top', 'page_docs');
  await page.locator('header').getByRole('link', { name: en('nav_sign_in'), exact: true }).click();
  await waitForScreen(page, 'page_sign_in');
  await fillSignIn(page, user.name, user.password);
  await submitSignIn(page);
  await page.waitForURL((url) => url.pathname === '/docs/en/', { timeout: 10_000 });
  expect(pathAndQuery(page)).toBe('/docs/en/?from=e2e');
  await waitForScreen(page, 'page_docs');
  await page.locator('header').getByRole('button', { name: en('nav_sign_out'), exact: true }).waitFor();
  await context.close();
}, 30_000);

test('wrong credentials and a taken name show their errors on screen', async () => {
  const user = await registerUser(e2e.server);
  const { page, context } = await e2e.open();
  await visit(page, '/login', 'page_sign_in');

  await fillSignIn(page, user.name, 'not-the-password');
  await submitSignIn(page);
  const problem = page.locator('form.auth_form [role="alert"]');
  await problem.waitFor({ timeout: 10_000 });
  expect(await problem.getAttribute('data-error-code')).toBe('wrong_credentials');
  const shown = (await problem.textContent()) ?? '';
  expect(shown).toStartWith('Error: ');
  expect(shown).toEndWith('.');
  expect(pathAndQuery(page)).toBe('/login');
  // The form stays usable: the right password signs in.
  await page.getByLabel(en('auth_password'), { exact: true }).fill(user.password);
  await submitSignIn(page);
  await page.locator('main h1', { hasText: en('home_welcome', { name: user.name }) }).waitFor({ timeout: 10_000 });

  // An unknown user is refused the same way.
  const visitor = await e2e.open();
  await visit(visitor.page, '/login', 'page_sign_in');
  await fillSignIn(visitor.page, `nobody${Date.now()}`, 'whatever-password');
  await submitSignIn(visitor.page);
  const unknown = visitor.page.locator('form.auth_form [role="alert"]');
  await unknown.waitFor({ timeout: 10_000 });
  expect(await unknown.getAttribute('data-error-code')).toBe('wrong_credentials');

  // Registering a name that exists shows the conflict.
  await visit(visitor.page, '/register', 'page_register');
  await fillSignIn(visitor.page, user.name, 'another-password-1');
  await visitor.page.locator('form.auth_form').getByRole('button', { name: en('auth_register_submit'), exact: true }).click();
  const conflict = visitor.page.locator('form.auth_form [role="alert"]');
  await conflict.waitFor({ timeout: 10_000 });
  expect(await conflict.getAttribute('data-error-code')).toBe('name_conflict');
  expect(new URL(visitor.page.url()).pathname).toBe('/register');
  await visitor.context.close();
  await context.close();
}, 30_000);

test('registration explains why a weak password is refused, in the form', async () => {
  const { page, context } = await e2e.open();
  await visit(page, '/register', 'page_register');
  const problem = page.locator('form.auth_form [role="alert"]');
  const register = () => page.locator('form.auth_form').getByRole('button', { name: en('auth_register_submit'), exact: true }).click();
  // Shape rules answer at once, before any request.
  const name = newName();
  await fillSignIn(page, name, '12345678');
  await register();
  await problem.waitFor({ timeout: 10_000 });
  expect(await problem.textContent()).toBe(en('auth_password_repetitive'));
  expect(await page.getByLabel(en('auth_password'), { exact: true }).getAttribute('aria-invalid')).toBe('true');
  // The common-password list is the server's.
  await fillSignIn(page, name, 'Password1');
  await register();
  await page.locator('form.auth_form [role="alert"]', { hasText: en('auth_password_common') }).waitFor({ timeout: 10_000 });
  expect(new URL(page.url()).pathname).toBe('/register');
  await context.close();
}, 30_000);

test('a form on another site can neither sign the visitor in as someone else nor sign them out', async () => {
  const attacker = await registerUser(e2e.server);
  const victim = await e2e.openSignedIn();
  const target = e2e.server.url;
  const forms: Record<string, string> = {
    '/login-form': `<form method="post" action="${target}/api/auth/password" enctype="application/x-www-form-urlencoded"><input name="name" value="${attacker.name}"><input name="password" value="${attacker.password}"></form>`,
    '/login-text': `<form method="post" action="${target}/api/auth/password" enctype="text/plain"><input name='{"name":"${attacker.name}","password":"${attacker.password}","x":"' value='"}'></form>`,
    '/logout': `<form method="post" action="${target}/api/auth/clear"></form>`,
  };
  // The attacker's pages: on another site (localhost against the app's 127.0.0.1) and on another port
  // of the app's own host (same-site, like the play origin).
  const site = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (request) =>
      new Response(`<!doctype html><body>${forms[new URL(request.url).pathname] ?? ''}<script>document.forms[0].submit()</script></body>`, {
        headers: { 'content-type': 'text/html' },
      }),
  });
  try {
    const sessionCookie = async () => (await victim.context.cookies(target)).find((cookie) => cookie.name === 'cartridge_session')?.value;
    const before = await sessionCookie();
    expect(before).toBe(victim.user.cookie.split('=')[1]);
    for (const host of ['localhost', '127.0.0.1']) {
      for (const path of Object.keys(forms)) {
        const answered = victim.page.waitForResponse((response) => response.url().startsWith(`${target}/api/auth/`), { timeout: 10_000 });
        await victim.page.goto(`http://${host}:${site.port}${path}`);
        const response = await answered;
        expect([403, 415]).toContain(response.status());
        expect(await sessionCookie()).toBe(before);
      }
    }
    const session = await (await e2e.server.fetch('/api/auth/session', { headers: { cookie: `cartridge_session=${before}` } })).json();
    expect(session.userInfo.id).toBe(victim.user.id);
  } finally {
    await site.stop(true);
    await victim.context.close();
  }
}, 30_000);
