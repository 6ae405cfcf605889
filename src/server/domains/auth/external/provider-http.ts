import type { SignInProviderId } from '../../../../shared/schemas/external-auth.ts';
import { ProviderAnswerError, providerRefused, providerUnavailable } from './provider-errors.ts';

/** Every call to a provider gives up after this long (a hung provider must not hold a request forever). */
export const providerTimeoutMs = 10_000;
/** Token and profile answers are a few KB; more is refused rather than buffered. */
const maxAnswerBytes = 1024 * 1024;

/**
 * fetch for provider calls (also oauth4webapi's customFetch): a timeout, no redirects followed, and the
 * body read up front within a size limit. Network failures and timeouts become providerUnavailable.
 * Nothing here logs: URLs and bodies may carry codes, tokens or keys.
 */
export function providerFetcher(provider: SignInProviderId) {
  return async (url: string | URL, init: RequestInit = {}): Promise<Response> => {
    const timeout = AbortSignal.timeout(providerTimeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await fetch(url, { ...init, redirect: 'manual', signal });
    } catch {
      throw providerUnavailable(provider);
    }
    let body: Buffer<ArrayBuffer> | undefined;
    try {
      body = await readLimited(response, maxAnswerBytes);
    } catch {
      throw providerUnavailable(provider);
    }
    if (!body) throw new ProviderAnswerError(provider, 'answer too large', response.status);
    return new Response(response.status === 204 || response.status === 304 ? null : body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** The body, or undefined past limit bytes. */
async function readLimited(response: Response, limit: number): Promise<Buffer<ArrayBuffer> | undefined> {
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks) as Buffer<ArrayBuffer>;
}

/**
 * JSON whose numeric ids are kept as their exact digits: JSON.parse would round an id above 2^53
 * (JSON.parse source text access hands the reviver each number's source).
 */
export function parseJsonWithExactIds(text: string, idKeys: readonly string[] = ['id']): unknown {
  return JSON.parse(text, function (this: unknown, key: string, value: unknown, context?: { source?: string }) {
    if (typeof value === 'number' && idKeys.includes(key) && context?.source !== undefined) return context.source;
    return value;
  } as (this: unknown, key: string, value: unknown) => unknown);
}

/**
 * A provider API answer as JSON: 401 and 403 mean the token was refused; 5xx that the provider is
 * failing; anything else that is not a JSON object is unexpected.
 */
export async function readProviderJson(provider: SignInProviderId, response: Response): Promise<Record<string, unknown>> {
  if (response.status === 401 || response.status === 403) throw providerRefused(provider);
  if (response.status >= 500) throw providerUnavailable(provider);
  if (response.status !== 200) throw new ProviderAnswerError(provider, 'unexpected status', response.status);
  let json: unknown;
  try {
    json = parseJsonWithExactIds(await response.text());
  } catch {
    throw new ProviderAnswerError(provider, 'not JSON', response.status);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ProviderAnswerError(provider, 'not a JSON object', response.status);
  return json as Record<string, unknown>;
}

/** A provider address joined with a path: bases may carry a path of their own (GitLab under /gitlab). */
export function endpoint(base: string, path: string): URL {
  return new URL(`${base.replace(/\/+$/, '')}${path}`);
}
