import { useDom } from './setup.ts';
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { userNameSchema } from '../../src/shared/schemas/auth.ts';

/**
 * Issue 29: the register hint says what the user-name field and the server accept. The pattern takes
 * capitals and the server keeps them as lower-case: the hint says so (it said lower-case letters only).
 */
useDom();
const { cleanup, render, screen } = await import('@testing-library/react');
const { UserNameField } = await import('../../src/client/routes/sign-in/user-name-field.tsx');
const { setLanguage } = await import('../../src/client/lib/i18n/index.ts');
const { auth_user_name_hint } = await import('../../src/shared/i18n/paraglide/messages/auth_user_name_hint.js');

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  cleanup();
  await server.stop();
});

test('the hint names capitals as accepted and saved in lower case', () => {
  setLanguage('en');
  render(<UserNameField hint={auth_user_name_hint()} />);
  const input = screen.getByLabelText('User name');
  const hint = document.getElementById(input.getAttribute('aria-describedby')!)!.textContent!;
  expect(hint).toBe("3 to 32 characters: letters a–z (capitals are saved as lower-case), digits, '.', '_' and '-'.");
});

test("the field's pattern accepts exactly what the server's rule accepts, capitals included", () => {
  render(<UserNameField />);
  const input = screen.getAllByLabelText('User name').at(-1) as HTMLInputElement;
  // As the browser reads a pattern attribute: the whole value, with the v flag.
  const pattern = new RegExp(`^(?:${input.pattern})$`, 'v');
  for (const name of ['ada', 'Ada', 'ADA_LOVELACE', 'a.b-c_d', '9lives', '.ada', '-ada', 'ada!', 'ada lovelace', 'Ölaf', 'ab', 'x'.repeat(33)]) {
    const browser = pattern.test(name) && name.length >= input.minLength && name.length <= input.maxLength;
    expect(`${name}: ${browser}`).toBe(`${name}: ${userNameSchema.safeParse(name).success}`);
  }
});

test('a name registered with capitals signs in in lower case, and with the capitals again', async () => {
  const register = await server.fetch('/api/auth/password', { method: 'POST', json: { name: 'Mixed.Case', password: 'correct horse battery staple', intent: 'register' } });
  expect(register.status).toBe(200);
  for (const name of ['mixed.case', 'MIXED.CASE']) {
    const signIn = await server.fetch('/api/auth/password', { method: 'POST', json: { name, password: 'correct horse battery staple' } });
    expect(signIn.status).toBe(200);
  }
  const credentials = (await (await server.fetch('/api/users/me/credentials', { token: ((await register.json()) as { authToken: string }).authToken })).json()) as { name: string }[];
  expect(credentials.map((credential) => credential.name)).toEqual(['mixed.case']);
});
