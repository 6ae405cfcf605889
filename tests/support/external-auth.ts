import { afterAll, beforeAll, expect } from 'bun:test';
import { sql } from 'drizzle-orm';
import type { ExternalIntent, FinishedExternalAuth, SignInProviderId, StartedExternalAuth } from '../../src/shared/schemas/external-auth.ts';
import { registerUser } from './accounts.ts';
import { startFakeProviders, type FakeProviders } from './fake-providers/index.ts';
import { startTestServer, type TestServer } from './server.ts';

/**
 * Drives an external sign-in the way the web client does (spec §4 and §5): start, follow the provider's
 * redirect (fetch with redirect: 'manual' stands for the browser), read code and state from where each
 * provider puts them, finish, then the next step.
 */
export type Callback = { code: string; state: string };

/** What the flows need of a server: its fetch (a TestServer, or a ChildServer in its own process). */
export type ApiServer = Pick<TestServer, 'fetch'>;

export async function startExternal(server: ApiServer, provider: SignInProviderId | string, intent: ExternalIntent | string, bearer?: string): Promise<Response> {
  return server.fetch(`/api/auth/external/start?provider=${encodeURIComponent(provider)}&intent=${encodeURIComponent(intent)}`, { method: 'POST', token: bearer });
}

export async function started(server: ApiServer, provider: SignInProviderId, intent: ExternalIntent, bearer?: string): Promise<StartedExternalAuth> {
  const response = await startExternal(server, provider, intent, bearer);
  if (response.status !== 200) throw new Error(`start ${provider} ${intent}: ${response.status} ${await response.text()}`);
  return (await response.json()) as StartedExternalAuth;
}

/** The provider's answer: where it sends the browser back (its 302), for the client's extraction. */
export async function authorizeAt(start: StartedExternalAuth): Promise<URL> {
  expect(start.postParams).toEqual([]);
  const response = await fetch(start.url, { redirect: 'manual' });
  if (response.status !== 302) throw new Error(`provider answered ${response.status}: ${await response.text()}`);
  return new URL(response.headers.get('location')!);
}

/** Spec §5: code and state from the query (OAuth), every query parameter as JSON (Steam), the fragment (itch). */
export function callbackOf(provider: SignInProviderId, location: URL): Callback {
  if (provider === 'steam') {
    return { code: JSON.stringify(Object.fromEntries(location.searchParams)), state: location.searchParams.get('state') ?? '' };
  }
  if (provider === 'itch') {
    const fragment = new URLSearchParams(location.hash.slice(1));
    return { code: fragment.get('access_token') ?? '', state: fragment.get('state') ?? '' };
  }
  return { code: location.searchParams.get('code') ?? '', state: location.searchParams.get('state') ?? '' };
}

export function finishExternal(server: ApiServer, callback: Callback): Promise<Response> {
  return server.fetch(`/api/auth/external/finish?token=${encodeURIComponent(callback.state)}&code=${encodeURIComponent(callback.code)}`, { method: 'POST' });
}

/** start → provider → finish, asserting the client's own check (state equals the stored token). */
export async function finishedFlow(server: ApiServer, provider: SignInProviderId, intent: ExternalIntent, bearer?: string): Promise<FinishedExternalAuth> {
  const start = await started(server, provider, intent, bearer);
  const callback = callbackOf(provider, await authorizeAt(start));
  expect(callback.state).toBe(start.token);
  const response = await finishExternal(server, callback);
  if (response.status !== 200) throw new Error(`finish ${provider}: ${response.status} ${await response.text()}`);
  return (await response.json()) as FinishedExternalAuth;
}

export const signInWith = (server: ApiServer, token: string, init: RequestInit = {}) => server.fetch(`/api/users/auth?token=${encodeURIComponent(token)}`, { method: 'POST', ...init });
export const registerWith = (server: ApiServer, token: string, init: RequestInit = {}) => server.fetch(`/api/users/register?token=${encodeURIComponent(token)}`, { method: 'POST', ...init });
export const linkWith = (server: ApiServer, token: string, bearer: string) => server.fetch(`/api/users/me/credentials?token=${encodeURIComponent(token)}`, { method: 'POST', token: bearer });

export type SessionReply = { id: string; authToken: string; userInfo: { id: string; title: string }; userPrivileges: string[] };

/** A new account made with the provider (fakes.signInAs first): its session. */
export async function registerExternally(server: ApiServer, fakes: FakeProviders, provider: SignInProviderId, identity: Parameters<FakeProviders['signInAs']>[1]): Promise<SessionReply> {
  fakes.signInAs(provider, identity);
  const finished = await finishedFlow(server, provider, 'register');
  expect(finished).toMatchObject({ hasUser: false, intent: 'register' });
  const response = await registerWith(server, finished.token);
  if (response.status !== 200) throw new Error(`register ${provider}: ${response.status} ${await response.text()}`);
  return (await response.json()) as SessionReply;
}

let counter = 0;
/** A fresh identity for the provider: 17 digits for Steam, a large id elsewhere. */
export function freshIdentity(provider: SignInProviderId, name = `${provider} player ${++counter}`) {
  const serial = `${Date.now()}${++counter}${Math.floor(Math.random() * 1000)}`.slice(-10).padStart(10, '0');
  const id = provider === 'steam' ? `7656119${serial}` : provider === 'discord' ? `1${serial}12345678` : `${++counter}${serial.slice(-6)}`;
  return { id, login: `${provider}_login_${counter}`, name };
}

/** Rows a refusal must leave as they were. */
export async function accountCounts(server: TestServer): Promise<{ users: number; credentials: number; sessions: number }> {
  const rows = await server.deps.db.execute<{ users: number; credentials: number; sessions: number }>(
    sql`select (select count(*)::int from users) as users, (select count(*)::int from credentials) as credentials, (select count(*)::int from sessions) as sessions`,
  );
  const list = Array.isArray(rows) ? rows : (rows as unknown as { rows: unknown[] }).rows;
  return list[0] as { users: number; credentials: number; sessions: number };
}

/** Expects a catalogued error reply. */
export async function expectError(response: Response, status: number, body: Record<string, unknown>): Promise<void> {
  const text = await response.text();
  expect(`${response.status} ${text}`).toStartWith(`${status} `);
  expect(JSON.parse(text)).toMatchObject(body);
}

/**
 * For one test file: the six fake providers and a test server configured with them, whose first
 * account (the administrator) is made already; read them inside tests (set by beforeAll).
 */
export function useServerWithFakeProviders(): { readonly fakes: FakeProviders; readonly server: TestServer } {
  const made: { fakes?: FakeProviders; server?: TestServer } = {};
  beforeAll(async () => {
    made.fakes = await startFakeProviders();
    made.server = await startTestServer(made.fakes.env);
    await registerUser(made.server, 'first-admin');
  });
  afterAll(async () => {
    await made.server?.stop();
    await made.fakes?.close();
  });
  return {
    get fakes() {
      return made.fakes!;
    },
    get server() {
      return made.server!;
    },
  };
}
