import { afterAll, beforeAll, expect, test } from 'bun:test';
import { registerUser } from '../support/accounts.ts';
import { startTestServer } from '../support/server.ts';
import { en, startE2E, visit, waitForScreen, type E2E } from './support/app.ts';

/** Issue 4 auth UI: no external provider configured, and an instance that requires sign-in (the providers: external-auth.test.ts). */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

test('an instance with no sign-in provider configured offers no other service (external-auth.test.ts has them)', async () => {
  const { page, context } = await e2e.open();
  await visit(page, '/login', 'page_sign_in');
  // The instance info says which providers exist: let it arrive before looking for the button.
  await page.waitForLoadState('networkidle');
  expect(await page.getByRole('button', { name: en('auth_other_providers_button'), exact: true }).count()).toBe(0);
  await visit(page, '/register', 'page_register');
  await page.waitForLoadState('networkidle');
  expect(await page.getByRole('button', { name: en('auth_other_providers_button'), exact: true }).count()).toBe(0);
  await context.close();
}, 30_000);

test('an instance with AUTH_REQUIRED shows sign-in on every page and stays on the page afterwards', async () => {
  const server = await startTestServer({ AUTH_REQUIRED: 'true' });
  try {
    const user = await registerUser(server);
    const context = await e2e.browser.newContext({ baseURL: server.url, locale: 'en-US' });
    try {
      const page = await context.newPage();
      // The external sign-in callback is public like the sign-in screens (here it has nothing to finish).
      await page.goto('/oauth?code=c&state=s', { waitUntil: 'domcontentloaded' });
      await waitForScreen(page, 'page_oauth');
      await page.locator('main [data-error-code="wrong_finish_auth_params"]').waitFor({ timeout: 10_000 });
      await page.goto('/experiment?x=1', { waitUntil: 'domcontentloaded' });
      await waitForScreen(page, 'page_sign_in');
      expect(await page.locator('main h1').textContent()).toBe(en('auth_required_title'));
      expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/experiment?x=1');
      await page.getByLabel(en('auth_user_name'), { exact: true }).fill(user.name);
      await page.getByLabel(en('auth_password'), { exact: true }).fill(user.password);
      await page.locator('form.auth_form').getByRole('button', { name: en('auth_sign_in_submit'), exact: true }).click();
      await page.locator('main#content.page_experiment').waitFor({ timeout: 10_000 });
      expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/experiment?x=1');
    } finally {
      await context.close();
    }
  } finally {
    await server.stop();
  }
}, 30_000);
