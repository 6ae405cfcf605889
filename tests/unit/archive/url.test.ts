import { afterAll, beforeAll, expect, test } from 'bun:test';
import { ArchiveError, addFile, bytesSource, createTree, readAllFiles, readArchiveFromUrl } from '../../../src/shared/archive/index.ts';
import { packToBytes, rejectionOf } from './support.ts';

let server: ReturnType<typeof Bun.serve>;
let archive: Uint8Array;
const requests: { path: string; mode: string | null }[] = [];

beforeAll(async () => {
  const tree = createTree();
  addFile(tree, 'www/index.html', bytesSource(new TextEncoder().encode('<h1>game</h1>')));
  archive = (await packToBytes(tree)).bytes;
  server = Bun.serve({
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      requests.push({ path, mode: request.headers.get('sec-fetch-mode') });
      if (path === '/game.crt') return new Response(archive as Uint8Array<ArrayBuffer>, { headers: { 'access-control-allow-origin': '*' } });
      if (path === '/partial.crt') return new Response(archive as Uint8Array<ArrayBuffer>, { status: 206 });
      return new Response('nope', { status: 404 });
    },
  });
});

afterAll(() => server.stop(true));

test('readArchiveFromUrl streams a 200 answer', async () => {
  requests.length = 0;
  const read = await readArchiveFromUrl(new URL('/game.crt', server.url));
  const files = await readAllFiles(read);
  expect(new TextDecoder().decode(files.get('www/index.html'))).toBe('<h1>game</h1>');
  expect(requests.map((r) => r.path)).toEqual(['/game.crt']);
});

test('any status but 200 is archive_fetch_failed with the status, after exactly one request', async () => {
  for (const [path, status] of [['/missing.crt', 404], ['/partial.crt', 206]] as const) {
    requests.length = 0;
    const error = await rejectionOf(readArchiveFromUrl(new URL(path, server.url)));
    expect(error).toBeInstanceOf(ArchiveError);
    expect(error.code).toBe('archive_fetch_failed');
    expect(error.status).toBe(status);
    expect(requests.length).toBe(1);
  }
});

test('a network failure is archive_fetch_failed with status 0', async () => {
  const error = await rejectionOf(readArchiveFromUrl('http://127.0.0.1:1/none'));
  expect(error.code).toBe('archive_fetch_failed');
  expect(error.status).toBe(0);
});

test('the request asks for mode cors', async () => {
  let seen: RequestInit | undefined;
  const fakeFetch = (async (_url: string | URL | Request, init?: RequestInit) => {
    seen = init;
    return new Response(archive as Uint8Array<ArrayBuffer>);
  }) as typeof fetch;
  await readArchiveFromUrl('https://example.invalid/a.crt', { fetch: fakeFetch });
  expect(seen?.mode).toBe('cors');
});
