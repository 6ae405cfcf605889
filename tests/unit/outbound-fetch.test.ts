import { afterAll, describe, expect, test } from 'bun:test';
import { boundedFetch, OutboundTooLarge, OutboundUnavailable } from '../../src/server/outbound/bounded-fetch.ts';
import { endpoint } from '../../src/server/outbound/endpoint.ts';
import { parseJsonWithExactIds } from '../../src/server/outbound/json-exact-ids.ts';
import { checkItchKey } from '../../src/server/domains/deploys/itch-api.ts';
import { providerFetcher } from '../../src/server/domains/auth/external/provider-http.ts';
import { ProviderAnswerError } from '../../src/server/domains/auth/external/provider-errors.ts';
import { AppError } from '../../src/server/errors.ts';

/**
 * The room for calling third parties (src/server/outbound/): no redirects followed, answers past 1 MiB
 * refused, no answer as one failure; and how sign-in and deploys say those failures in their own terms.
 */
const service = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === '/huge') return new Response('x'.repeat(1024 * 1024 + 1));
    if (path === '/redirect') return new Response(null, { status: 302, headers: { location: '/small' } });
    return new Response('{"id": 12345678901234567890, "n": 1.5}', { headers: { 'content-type': 'application/json' } });
  },
});
afterAll(() => service.stop(true));
const at = (path: string) => endpoint(`${service.url.origin}/`, path);

describe('boundedFetch', () => {
  test('an answer within the limit is read whole; a redirect is answered, not followed', async () => {
    expect(await (await boundedFetch(at('/small'))).text()).toBe('{"id": 12345678901234567890, "n": 1.5}');
    const redirect = await boundedFetch(at('/redirect'));
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('/small');
  });

  test('past 1 MiB: OutboundTooLarge with the status; nobody listening: OutboundUnavailable', async () => {
    const huge = await boundedFetch(at('/huge')).catch((error: unknown) => error);
    expect(huge).toBeInstanceOf(OutboundTooLarge);
    expect((huge as OutboundTooLarge).status).toBe(200);
    expect(await boundedFetch('http://127.0.0.1:1/').catch((error: unknown) => error)).toBeInstanceOf(OutboundUnavailable);
  });

  test('an aborted caller signal ends the call as unavailable', async () => {
    expect(await boundedFetch(at('/small'), { signal: AbortSignal.abort() }).catch((error: unknown) => error)).toBeInstanceOf(OutboundUnavailable);
  });
});

describe('exact ids and endpoints', () => {
  test('ids keep their digits, other numbers stay numbers', () => {
    expect(parseJsonWithExactIds('{"id": 12345678901234567890, "n": 1.5}')).toEqual({ id: '12345678901234567890', n: 1.5 });
    expect(parseJsonWithExactIds('{"user_id": 9007199254740993}', ['user_id'])).toEqual({ user_id: '9007199254740993' });
  });

  test('a base with a path and trailing slashes keeps its path', () => {
    expect(endpoint('https://git.example/gitlab//', '/api/v4/user').href).toBe('https://git.example/gitlab/api/v4/user');
  });
});

describe('the failures in each caller\'s terms', () => {
  test('sign-in: no answer is "did not answer" (timeout), too large a ProviderAnswerError', async () => {
    const fetcher = providerFetcher('github');
    const closed = await fetcher('http://127.0.0.1:1/').catch((error: unknown) => error);
    expect(closed).toBeInstanceOf(AppError);
    expect(closed).toMatchObject({ code: 'timeout', message: 'GitHub did not answer: try again later', details: { provider: 'github', reason: 'provider_unavailable' } });
    const huge = await fetcher(at('/huge')).catch((error: unknown) => error);
    expect(huge).toBeInstanceOf(ProviderAnswerError);
    expect((huge as ProviderAnswerError).what).toBe('answer too large');
  });

  test('deploys: no answer is "itch.io did not answer" (timeout), too large not understood (unexpected_error)', async () => {
    const closed = await checkItchKey('http://127.0.0.1:1', 'k'.repeat(40)).catch((error: unknown) => error);
    expect(closed).toMatchObject({ code: 'timeout', message: 'itch.io did not answer: try again later', details: { provider: 'itch', reason: 'provider_unavailable' } });
    const huge = await checkItchKey(`${service.url.origin}/huge?`, 'k'.repeat(40)).catch((error: unknown) => error);
    expect(huge).toMatchObject({ code: 'unexpected_error', details: { provider: 'itch', reason: 'provider_answer' } });
  });
});
