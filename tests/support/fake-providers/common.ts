import { createHash, randomBytes } from 'node:crypto';

export type FakeProviderId = 'steam' | 'github' | 'gitlab' | 'itch' | 'twitch' | 'discord';

/**
 * The account the next authorization approves. id is the provider's account id as digits (a string, so
 * ids beyond 2^53 stay exact; providers with numeric ids write it as a bare JSON number). Steam ids are 17 digits.
 */
export type FakeIdentity = { id: string; login: string; name?: string; avatarUrl?: string; profileUrl?: string };

/** One request a fake received (bodies of form posts parsed), for assertions. */
export type FakeRequest = {
  provider: FakeProviderId;
  method: string;
  path: string;
  query: Record<string, string>;
  form: Record<string, string> | undefined;
  headers: Record<string, string>;
};

export type FakeContext = {
  provider: FakeProviderId;
  origin: string;
  identity(): FakeIdentity;
  log(request: FakeRequest): void;
};

export type FakeHandler = (request: Request, url: URL, form: Record<string, string> | undefined) => Response | Promise<Response>;

export const randomToken = (bytes = 24) => randomBytes(bytes).toString('base64url');

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** JSON with the named member written as a bare number made of the given digits (exact beyond 2^53). */
export function jsonWithNumericId(value: Record<string, unknown>, key: string, digits: string): string {
  if (!/^[0-9]+$/.test(digits)) throw new Error(`not digits: ${digits}`);
  const placeholder = `__numeric_${randomToken(6)}__`;
  return JSON.stringify({ ...value, [key]: placeholder }).replace(`"${placeholder}"`, digits);
}

export function jsonText(text: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(text, { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}

export function json(value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return jsonText(JSON.stringify(value), status, headers);
}

export function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { location } });
}

/** The bearer token of an API call, or undefined. */
export function bearerOf(request: Request): string | undefined {
  const match = /^Bearer (\S+)$/i.exec(request.headers.get('authorization') ?? '');
  return match?.[1];
}

/** A loopback Bun.serve for one fake, logging every request. */
export function serveFake(provider: FakeProviderId, log: (request: FakeRequest) => void, handle: FakeHandler) {
  return Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const url = new URL(request.url);
      const type = request.headers.get('content-type') ?? '';
      const form = request.method === 'POST' && type.startsWith('application/x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(await request.text())) : undefined;
      log({ provider, method: request.method, path: url.pathname, query: Object.fromEntries(url.searchParams), form, headers: Object.fromEntries(request.headers) });
      try {
        return await handle(request, url, form);
      } catch (error) {
        return new Response(`fake ${provider} failed: ${error instanceof Error ? error.message : String(error)}`, { status: 500 });
      }
    },
  });
}
