import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createKeyring } from '../../src/server/crypto/index.ts';
import { createPublicPlayToken, createSignedPlayToken, verifyPlayToken } from '../../src/server/browser-play/play-token.ts';
import type { TestUser } from '../support/accounts.ts';
import { uploadPackage } from '../support/packages.ts';
import { makePublic, makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// A module exporting ans() = 42: WebAssembly MIME type checks use real wasm bytes.
const wasm = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 127, 3, 2, 1, 0, 7, 7, 1, 3, 97, 110, 115, 0, 0, 10, 6, 1, 4, 0, 65, 42, 11]);
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
// Large and varied enough to span several chunks (and, zstd-packed, several compressed chunks).
const big = new Uint8Array(3 * 1024 * 1024 + 77).map((_, i) => (i * 2654435761) >>> 24 ^ (i & 0xff));

const gameFiles = {
  'index.html': '<!doctype html><title>Game</title><script src="game.js"></script>',
  'game.js': 'console.log("hello")',
  'game.wasm': wasm,
  'style.css': 'body { margin: 0 }',
  'img/logo.png': png,
  'levels/index.html': '<p>levels</p>',
  'data/big.bin': big,
  'data/empty.json': '',
  'unknown.pck': 'PCK',
};

let server: TestServer;
let team: Team;
let privateGame: string; // members only
let webPackage: string;

async function json(response: Response): Promise<any> {
  return response.json();
}

function playPath(project: string, pkg: string): string {
  return `/api/projects/${project}/packages/${pkg}/play`;
}

async function playUrl(user: TestUser | undefined, project: string, pkg: string): Promise<string> {
  const response = await server.fetch(playPath(project, pkg), { token: user?.token });
  if (response.status !== 200) throw new Error(`play url: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { url: string }).url;
}

function rootOf(url: string): string {
  return url.slice(0, url.indexOf('/', url.indexOf('/p/') + 3) + 1);
}

beforeAll(async () => {
  server = await startTestServer();
  team = await makeTeam(server);
  webPackage = (await uploadPackage(server, team.developer, team.project.id, gameFiles, { tags: ['os:web'], entrypoint: ['index.html'], compression: 1 })).id;
  privateGame = webPackage;
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe('issuing play URLs', () => {
  test('a member gets a signed URL of the play origin pointing at the start file', async () => {
    for (const member of [team.owner, team.tester]) {
      const url = await playUrl(member, team.project.id, privateGame);
      expect(url.startsWith(`${server.playUrl}/p/`)).toBe(true);
      expect(url.endsWith('/index.html')).toBe(true);
      const token = url.slice(url.indexOf('/p/') + 3, url.lastIndexOf('/'));
      expect(token.split('.')).toHaveLength(3); // id.expiry.mac
      expect(token.startsWith(`${privateGame}.`)).toBe(true);
    }
  });

  test('the play origin is another origin than the app', () => {
    expect(new URL(server.playUrl).origin).not.toBe(new URL(server.url).origin);
  });

  test('outsiders and visitors get not_found for a private package, tRPC alike', async () => {
    const outsider = await server.fetch(playPath(team.project.id, privateGame), { token: team.outsider.token });
    expect(outsider.status).toBe(404);
    expect((await json(outsider)).code).toBe('not_found');
    expect((await server.fetch(playPath(team.project.id, privateGame))).status).toBe(404);
    await expect(server.trpc(team.outsider.token).play.packageUrl.query({ project: team.project.id, package: privateGame })).rejects.toThrow();
    const viaTrpc = await server.trpc(team.tester.token).play.packageUrl.query({ project: team.project.id, package: privateGame });
    expect(viaTrpc.url.startsWith(`${server.playUrl}/p/${privateGame}.`)).toBe(true);
  });

  test('a package not tagged os:web is not_supported with a clear message', async () => {
    const linux = await uploadPackage(server, team.developer, team.project.id, { 'game.x86_64': 'ELF' }, { tags: ['os:linux'] });
    const response = await server.fetch(playPath(team.project.id, linux.id), { token: team.owner.token });
    expect(response.status).toBe(501);
    const body = await json(response);
    expect(body.code).toBe('not_supported');
    expect(body.message).toContain('os:web');
  });

  test('unknown package is not_found', async () => {
    const response = await server.fetch(playPath(team.project.id, 'nosuchpackage'), { token: team.owner.token });
    expect(response.status).toBe(404);
  });
});

describe('serving files', () => {
  let root: string;
  beforeAll(async () => {
    root = rootOf(await playUrl(team.owner, team.project.id, privateGame));
  });

  test('MIME types, lengths and bytes of html, js, wasm, css, png and unknown files', async () => {
    const expected: [string, string, Uint8Array | string][] = [
      ['index.html', 'text/html', gameFiles['index.html']],
      ['game.js', 'text/javascript', gameFiles['game.js']],
      ['game.wasm', 'application/wasm', wasm],
      ['style.css', 'text/css', gameFiles['style.css']],
      ['img/logo.png', 'image/png', png],
      ['unknown.pck', 'application/octet-stream', 'PCK'],
    ];
    for (const [path, type, content] of expected) {
      const response = await fetch(root + path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')!.split(';')[0]).toBe(type);
      const bytes = new Uint8Array(await response.arrayBuffer());
      const want = typeof content === 'string' ? new TextEncoder().encode(content) : content;
      expect(Buffer.from(bytes).equals(Buffer.from(want))).toBe(true);
      expect(response.headers.get('content-length')).toBe(String(want.length));
    }
  });

  test('WebAssembly compiles straight from the response (streaming needs application/wasm)', async () => {
    const { instance } = await WebAssembly.instantiateStreaming(fetch(root + 'game.wasm'));
    expect((instance.exports.ans as () => number)()).toBe(42);
  });

  test('a multi-chunk zstd file comes back whole and by ranges', async () => {
    const whole = new Uint8Array(await (await fetch(root + 'data/big.bin')).arrayBuffer());
    expect(whole.length).toBe(big.length);
    expect(Bun.hash(whole)).toBe(Bun.hash(big));
    const cases: [string, number, number][] = [
      ['bytes=0-9', 0, 10],
      ['bytes=1048570-2097160', 1048570, 2097161], // across chunk boundaries
      [`bytes=${big.length - 5}-`, big.length - 5, big.length],
      ['bytes=-100', big.length - 100, big.length],
      [`bytes=100-${big.length + 1000}`, 100, big.length],
    ];
    for (const [range, start, end] of cases) {
      const response = await fetch(root + 'data/big.bin', { headers: { range } });
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes ${start}-${end - 1}/${big.length}`);
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect(bytes.length).toBe(end - start);
      expect(Buffer.from(bytes).equals(Buffer.from(big.subarray(start, end)))).toBe(true);
    }
    const unsatisfiable = await fetch(root + 'data/big.bin', { headers: { range: `bytes=${big.length}-${big.length + 9}` } });
    expect(unsatisfiable.status).toBe(416);
    expect(unsatisfiable.headers.get('content-range')).toBe(`bytes */${big.length}`);
  });

  test('an empty file, HEAD, ETag and conditional requests', async () => {
    const empty = await fetch(root + 'data/empty.json');
    expect(empty.status).toBe(200);
    expect(await empty.text()).toBe('');
    const head = await fetch(root + 'game.js', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(gameFiles['game.js'].length));
    const etag = head.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const other = (await fetch(root + 'style.css', { method: 'HEAD' })).headers.get('etag');
    expect(other).not.toBe(etag);
    expect((await fetch(root + 'game.js', { headers: { 'if-none-match': etag } })).status).toBe(304);
    const ifRange = await fetch(root + 'game.js', { headers: { range: 'bytes=0-0', 'if-range': '"stale"' } });
    expect(ifRange.status).toBe(200);
  });

  test('directories serve index.html; missing paths, tokens and packages are 404', async () => {
    const levels = await fetch(root + 'levels/');
    expect(levels.status).toBe(200);
    expect(await levels.text()).toBe('<p>levels</p>');
    const bare = await fetch(root + 'levels', { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(new URL(bare.headers.get('location')!, root).href).toBe(root + 'levels/');
    const top = await fetch(root);
    expect(top.status).toBe(200);
    expect(await top.text()).toBe(gameFiles['index.html']);
    for (const path of ['nope.js', 'img/', 'img/logo.png/', 'img/nope.png', 'data/', '%E0%A4%A']) {
      expect((await fetch(root + path)).status).toBe(404);
    }
    const forged = root.replace(/\.[^./]+\/$/, '.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/');
    expect((await fetch(forged + 'index.html')).status).toBe(404);
    expect((await fetch(`${server.playUrl}/p/${privateGame}/index.html`)).status).toBe(404);
    expect((await fetch(`${server.playUrl}/`)).status).toBe(404);
    expect((await fetch(`${server.playUrl}/api/auth/session`)).status).toBe(404);
  });

  test('every reply keeps the game sandboxed on its own origin and sets no cookie', async () => {
    for (const path of ['index.html', 'game.wasm', 'nope.js']) {
      const response = await fetch(root + path, { headers: { cookie: 'cartridge_session=stolen' } });
      const csp = response.headers.get('content-security-policy')!;
      expect(csp).toContain('sandbox allow-scripts');
      expect(csp).not.toContain('allow-same-origin');
      expect(csp).not.toContain('allow-top-navigation');
      expect(response.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect(response.headers.get('cross-origin-embedder-policy')).toBe('credentialless');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      expect(response.headers.get('set-cookie')).toBeNull();
      await response.arrayBuffer();
    }
    const signed = await fetch(root + 'index.html');
    expect(signed.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
    const preflight = await fetch(root + 'game.wasm', { method: 'OPTIONS', headers: { origin: 'null', 'access-control-request-method': 'GET' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect((await fetch(root + 'index.html', { method: 'POST', body: 'x' })).status).toBe(405);
  });
});

describe('token lifetimes', () => {
  test('a signed token expires within about an hour and an expired one is 404 on the play origin', async () => {
    const secret = server.deps.keys;
    const now = new Date();
    const { token, expiresAt } = createSignedPlayToken(secret, privateGame, now);
    const lifetime = expiresAt.getTime() - now.getTime();
    expect(lifetime).toBeGreaterThanOrEqual(60 * 60_000 - 1000);
    expect(lifetime).toBeLessThanOrEqual(75 * 60_000);
    expect(verifyPlayToken(secret, token, now)).toMatchObject({ kind: 'signed', packageId: privateGame });
    expect(verifyPlayToken(secret, token, new Date(expiresAt.getTime() + 1))).toBeUndefined();
    expect(verifyPlayToken(createKeyring({ secretKey: 'another-secret-key-that-is-long-enough-000' }), token, now)).toBeUndefined();

    const expired = createSignedPlayToken(secret, privateGame, new Date(Date.now() - 2 * 60 * 60_000)).token;
    const response = await fetch(`${server.playUrl}/p/${expired}/index.html`);
    expect(response.status).toBe(404);
    const fresh = await fetch(`${server.playUrl}/p/${token}/index.html`);
    expect(fresh.status).toBe(200);
  });

  test('a public token of a package that is not public is 404 (tokens do not outlive visibility)', async () => {
    const token = createPublicPlayToken(server.deps.keys, privateGame);
    expect((await fetch(`${server.playUrl}/p/${token}/index.html`)).status).toBe(404);
  });
});

describe('public packages and the store route', () => {
  let pub: Team;
  let branchId: string;
  let hiddenBranchId: string;
  let current: string;
  let previous: string;
  let hidden: string;

  async function post(path: string, user: TestUser, body?: unknown): Promise<any> {
    const response = await server.fetch(path, { method: 'POST', token: user.token, json: body ?? {} });
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json();
  }

  async function publish(packageId: string, branch: string, title: string): Promise<void> {
    const version = await post(`/api/projects/${pub.project.id}/versions`, pub.owner, { title, packages: [packageId] });
    await post(`/api/projects/${pub.project.id}/branches/${branch}/versions/${version.id}`, pub.owner);
  }

  function storePath(branch: string, pkg: string, project = pub.project.id): string {
    return `/api/store/projects/${project}/branches/${branch}/packages/${pkg}/play`;
  }

  beforeAll(async () => {
    pub = await makeTeam(server);
    await makePublic(server, pub.project, pub.owner);
    branchId = (await post(`/api/projects/${pub.project.id}/branches`, pub.owner, { title: 'stable' })).id;
    hiddenBranchId = (await post(`/api/projects/${pub.project.id}/branches`, pub.owner, { title: 'internal' })).id;
    const patch = await server.fetch(`/api/projects/${pub.project.id}/branches/${branchId}`, { method: 'PATCH', token: pub.owner.token, json: { isPublic: true } });
    expect(patch.status).toBe(200);
    const upload = (files: Record<string, string>) =>
      uploadPackage(server, pub.developer, pub.project.id, files, { tags: ['os:web'], entrypoint: ['play', 'index.html'] });
    previous = (await upload({ 'play/index.html': 'v1' })).id;
    current = (await upload({ 'play/index.html': 'v2' })).id;
    hidden = (await upload({ 'play/index.html': 'secret' })).id;
    await publish(previous, branchId, '1.0');
    await publish(current, branchId, '2.0');
    await publish(hidden, hiddenBranchId, '3.0');
  }, 60_000);

  test("a visitor gets the public URL of a public branch's current version", async () => {
    const response = await server.fetch(storePath(branchId, current));
    expect(response.status).toBe(200);
    const { url } = await json(response);
    const token = createPublicPlayToken(server.deps.keys, current);
    expect(url).toBe(`${server.playUrl}/p/${token}/play/index.html`);
    const page = await fetch(url, { headers: { cookie: 'cartridge_session=whatever' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('v2');
    expect(page.headers.get('cache-control')).toBe('public, max-age=600');
    const viaTrpc = await server.trpc().play.storePackageUrl.query({ project: pub.project.id, branch: branchId, package: current });
    expect(viaTrpc.url).toBe(url);
  });

  test('the public URL is stable, and members get the same one', async () => {
    const again = await json(await server.fetch(storePath(branchId, current)));
    expect(await playUrl(pub.tester, pub.project.id, current)).toBe(again.url);
    // An outsider of a public project may use the project route for a package in a public branch.
    expect(await playUrl(pub.outsider, pub.project.id, current)).toBe(again.url);
  });

  test('the store route refuses older versions, private branches and wrong branches; members included', async () => {
    for (const [branch, pkg] of [
      [branchId, previous],
      [branchId, hidden],
      [hiddenBranchId, hidden],
      ['nosuchbranch', current],
    ] as const) {
      for (const user of [undefined, pub.owner]) {
        const response = await server.fetch(storePath(branch, pkg), { token: user?.token });
        expect(response.status).toBe(404);
        expect((await json(response)).code).toBe('not_found');
      }
    }
    // Another project's branch with this package: not_found.
    expect((await server.fetch(storePath(branchId, privateGame, team.project.id))).status).toBe(404);
  });

  test('a package in a private branch only gets signed URLs, for members', async () => {
    const url = await playUrl(pub.owner, pub.project.id, hidden);
    expect(url).toContain(`/p/${hidden}.`);
    expect(url.slice(url.indexOf('/p/') + 3).split('/')[0]!.split('.')).toHaveLength(3);
    expect((await server.fetch(playPath(pub.project.id, hidden), { token: pub.outsider.token })).status).toBe(404);
    expect(await (await fetch(url)).text()).toBe('secret');
  });

  test('making the project private turns its public URLs off', async () => {
    const { url } = await json(await server.fetch(storePath(branchId, current)));
    expect((await fetch(url)).status).toBe(200);
    const patch = await server.fetch(`/api/projects/${pub.project.id}`, { method: 'PATCH', token: pub.owner.token, json: { isPublic: false } });
    expect(patch.status).toBe(200);
    try {
      expect((await fetch(url)).status).toBe(404);
      expect((await server.fetch(storePath(branchId, current))).status).toBe(404);
      // Members now get a signed URL instead.
      expect(await playUrl(pub.owner, pub.project.id, current)).not.toBe(url);
    } finally {
      await server.fetch(`/api/projects/${pub.project.id}`, { method: 'PATCH', token: pub.owner.token, json: { isPublic: true } });
    }
  });
});
