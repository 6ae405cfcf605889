import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bufferedBodyLimit, serveRanged, type RangedBody } from '../../src/server/http/range.ts';

// serveRanged answers through a real Bun.serve: what a client sees is the point (lengths, chunking).
let folder: string;
let server: ReturnType<typeof Bun.serve>;
let body: RangedBody;
const size = bufferedBodyLimit + 1024 * 1024;
const bytes = new Uint8Array(size).map((_, i) => (i * 13) % 251);

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'cartridge-ranged-'));
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => serveRanged(request, body) });
});
afterAll(async () => {
  await server.stop(true);
  rmSync(folder, { recursive: true, force: true });
});

const streamOf = (start: number, end: number) => new Response(bytes.slice(start, end)).body!;
const url = () => `http://127.0.0.1:${server.port}/`;

test('a large body with a local file is sent from it with its length', async () => {
  const path = join(folder, 'whole.bin');
  writeFileSync(path, bytes);
  const asked: boolean[] = [];
  body = { size, etag: '"a"', headers: { 'content-type': 'application/zip' }, open: streamOf, file: async (make) => (asked.push(make), path) };
  const response = await fetch(url());
  expect(response.headers.get('content-length')).toBe(String(size));
  expect(response.headers.get('content-type')).toBe('application/zip');
  expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
  const small = await fetch(url(), { headers: { range: 'bytes=10-19' } });
  expect(Buffer.from(await small.arrayBuffer()).equals(Buffer.from(bytes.subarray(10, 20)))).toBe(true);
  expect(asked).toEqual([true, false]); // only large requests ask for the file to be made
});

test('a file still being made after the wait, or failing, does not hold the reply: it is streamed', async () => {
  body = { size, etag: '"b"', headers: {}, open: streamOf, file: (make) => (make ? new Promise<string>(() => {}) : Promise.resolve(undefined)) };
  const slow = await fetch(url());
  expect(slow.status).toBe(200);
  expect(Buffer.from(await slow.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
  body = { size, etag: '"c"', headers: {}, open: streamOf, file: () => Promise.reject(new Error('disk full')) };
  const failing = await fetch(url(), { headers: { range: `bytes=5-` } });
  expect(failing.status).toBe(206);
  expect(Buffer.from(await failing.arrayBuffer()).equals(Buffer.from(bytes.subarray(5)))).toBe(true);
}, 30_000);
