import { describe, expect, test } from 'bun:test';
import { ApiError, createApiClient, TriedFewTimesError, uploadRetry, withRetries } from '../../src/shared/api/index.ts';
import { blobPartSource, missingParts, sha1Hex, splitStream, uploadParts, type PartDescriptor } from '../../src/shared/upload/index.ts';
import { noise } from '../support/noise.ts';

const target = { uploadUrl: 'http://upload.test/api/uploads/p1', token: 'tok', partSize: 1000 };

/** A fake part endpoint: checks the hash like the server, records calls, fails on demand. */
function fakeServer(fail: (part: number, call: number) => number | 'network' | undefined = () => undefined) {
  const calls: { part: number; size: number }[] = [];
  const bodies = new Map<number, Uint8Array>();
  let inFlight = 0;
  let maxInFlight = 0;
  const doFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    const part = Number(url.searchParams.get('part'));
    const body = new Uint8Array(await new Response(init!.body).arrayBuffer());
    calls.push({ part, size: body.length });
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await Bun.sleep(5);
    inFlight -= 1;
    const failure = fail(part, calls.filter((call) => call.part === part).length);
    if (failure === 'network') throw new TypeError('connection reset');
    if (failure) return Response.json({ code: 'unexpected_error', message: 'boom' }, { status: failure });
    const hash = new Bun.CryptoHasher('sha1').update(body).digest('hex');
    if (hash !== url.searchParams.get('hash') || url.searchParams.get('token') !== 'tok') return Response.json({ code: 'bad_param', message: 'Invalid `hash`' }, { status: 400 });
    bodies.set(part, body);
    return Response.json({ part, hash, size: body.length });
  }) as typeof fetch;
  return { calls, bodies, doFetch, maxInFlight: () => maxInFlight };
}

const noSleep = async () => {};

/** The API client the parts go through: the fake endpoint as its fetch, spec §9 retries with the pauses given. */
const clientOf = (doFetch: typeof fetch, sleep: (ms: number) => Promise<void> = noSleep) =>
  createApiClient({ baseUrl: 'http://upload.test', fetch: doFetch, retry: { ...uploadRetry, sleep } });

describe('upload core', () => {
  test('sha1Hex matches a reference digest', async () => {
    expect(await sha1Hex(new TextEncoder().encode('abc'))).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
  });

  test('uploads every part two at a time and returns the descriptors in order', async () => {
    const bytes = noise(4500, 7);
    const server = fakeServer();
    const result = await uploadParts({ api: clientOf(server.doFetch), target, source: blobPartSource(new Blob([bytes])) });
    expect(result.parts.map((item) => [item.part, item.size])).toEqual([[0, 1000], [1, 1000], [2, 1000], [3, 1000], [4, 500]]);
    expect(result.sentBytes).toBe(4500);
    expect(server.maxInFlight()).toBe(2);
    const joined = new Uint8Array(4500);
    for (const [part, body] of server.bodies) joined.set(body, part * 1000);
    expect(joined).toEqual(bytes);
  });

  test('resumes: acknowledged parts are not sent again', async () => {
    const bytes = noise(3000, 8);
    const first = fakeServer();
    const done: PartDescriptor[] = [];
    await uploadParts({ api: clientOf(first.doFetch), target, source: blobPartSource(new Blob([bytes.subarray(0, 1000)])), onPart: (d) => void done.push(d) });
    expect(missingParts(3000, 1000, done)).toEqual([1, 2]);
    const second = fakeServer();
    const result = await uploadParts({ api: clientOf(second.doFetch), target, source: blobPartSource(new Blob([bytes])), acknowledged: done });
    expect(second.calls.map((call) => call.part).sort()).toEqual([1, 2]);
    expect(result.parts.map((item) => item.part)).toEqual([0, 1, 2]);
    expect(result.sentParts).toBe(2);
  });

  test('retries network errors and 5xx 3 times, 5000 ms apart by default', async () => {
    const pauses: number[] = [];
    const server = fakeServer((part, call) => (part === 1 && call === 1 ? 'network' : part === 1 && call === 2 ? 503 : undefined));
    const result = await uploadParts({ api: clientOf(server.doFetch, async (ms) => void pauses.push(ms)), target, source: blobPartSource(new Blob([noise(2000, 9)])) });
    expect(result.parts).toHaveLength(2);
    expect(pauses).toEqual([5000, 5000]);
    expect(server.calls.filter((call) => call.part === 1)).toHaveLength(3);
  });

  test('gives up after 3 tries with trying_few_times_failed and stops the other parts', async () => {
    const server = fakeServer((part) => (part === 0 ? 500 : undefined));
    const failure = await uploadParts({ api: clientOf(server.doFetch), target, source: blobPartSource(new Blob([noise(10_000, 10)])), concurrency: 1 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TriedFewTimesError);
    expect((failure as TriedFewTimesError).code).toBe('trying_few_times_failed');
    expect(server.calls.map((call) => call.part)).toEqual([0, 0, 0]);
  });

  test('a refusal (4xx) is not retried', async () => {
    let tries = 0;
    const failure = await withRetries(
      async () => {
        tries += 1;
        throw new ApiError('wrong_auth', 'nope', { status: 401 });
      },
      { ...uploadRetry, sleep: noSleep },
    ).catch((error: unknown) => error);
    expect(tries).toBe(1);
    expect(failure).toMatchObject({ status: 401, code: 'wrong_auth' });
  });

  test('splitStream cuts a stream into parts of the part size', async () => {
    const bytes = noise(2500, 11);
    const stream = new Blob([bytes.subarray(0, 700), bytes.subarray(700, 2100), bytes.subarray(2100)]).stream();
    const parts: { part: number; size: number }[] = [];
    const joined: number[] = [];
    for await (const item of splitStream(stream, 1000)) {
      parts.push({ part: item.part, size: item.bytes.length });
      joined.push(...item.bytes);
    }
    expect(parts).toEqual([{ part: 0, size: 1000 }, { part: 1, size: 1000 }, { part: 2, size: 500 }]);
    expect(new Uint8Array(joined)).toEqual(bytes);
  });
});
