import type { TestServer } from './server.ts';

let counter = 0;

export type TestUser = { name: string; password: string; token: string; id: string; cookie: string };

/** Registers a user through the public API and returns its bearer token. */
export async function registerUser(server: Pick<TestServer, 'fetch'>, name = `user${++counter}${Math.random().toString(36).slice(2, 6)}`): Promise<TestUser> {
  const password = `pw-${name}-secret`;
  const response = await server.fetch('/api/auth/password', { method: 'POST', json: { name, password, intent: 'register' } });
  if (response.status !== 200) throw new Error(`register ${name}: ${response.status} ${await response.text()}`);
  const session = (await response.json()) as { authToken: string; userInfo: { id: string } };
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  return { name, password, token: session.authToken, id: session.userInfo.id, cookie };
}
