import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiClient, routes } from '../../src/shared/api/index.ts';
import { localAppDownloadsSchema, type LocalAppDownloads } from '../../src/shared/schemas/local-helper.ts';
import { loadConfig } from '../../src/server/config.ts';
import { hostLocalAppPlatform, localAppFileName, setLocalAppBuilder } from '../../src/server/domains/local-app/local-app.service.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createApiToken } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * GET /api/local-app and /api/local-app/{platform}: the helper builds of LOCAL_APP_DIR (fake files
 * here: the bytes are data to the server), to anyone.
 */
let server: TestServer;
let root: string;
let dir: string;
let user: TestUser;
let apiToken: string;
const linuxBytes = new Uint8Array(300_000).map((_, index) => (index * 7 + 3) % 256);
const windowsBytes = new TextEncoder().encode('MZ fake windows helper');

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cartridge-local-app-'));
  dir = join(root, 'builds');
  mkdirSync(dir);
  writeFileSync(join(root, 'cartridge-helper-secret'), 'outside the folder');
  writeFileSync(join(dir, 'cartridge-helper-linux-x64'), linuxBytes);
  writeFileSync(join(dir, 'cartridge-helper-windows-x64.exe'), windowsBytes);
  // A link to a build counts (the operator's folder); a folder with a platform's name, a Windows name
  // without .exe and other files do not.
  symlinkSync(join(dir, 'cartridge-helper-linux-x64'), join(dir, 'cartridge-helper-linux-arm64'));
  mkdirSync(join(dir, 'cartridge-helper-darwin-arm64'));
  writeFileSync(join(dir, 'cartridge-helper-windows-x64'), 'no .exe');
  writeFileSync(join(dir, 'notes.txt'), 'not a build');
  server = await startTestServer({ LOCAL_APP_DIR: dir });
  user = await registerUser(server);
  apiToken = await createApiToken(server, user);
});
afterAll(async () => {
  await server.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('LOCAL_APP_DIR', () => {
  test('is resolved; set, the server never builds into it; unset from source, dist/local-app of the source tree', () => {
    const set = loadConfig({ SECRET_KEY: 'x'.repeat(32), LOCAL_APP_DIR: 'some/relative' });
    expect(set.localApp).toEqual({ dir: join(process.cwd(), 'some/relative'), buildOnDemand: false });
    const unset = loadConfig({ SECRET_KEY: 'x'.repeat(32) });
    expect(unset.localApp.dir).toBe(join(import.meta.dir, '..', '..', 'dist', 'local-app'));
    // bun test runs with NODE_ENV=test: test servers never compile the helper.
    expect(unset.localApp.buildOnDemand).toBe(false);
  });

  test('file names', () => {
    expect(localAppFileName('linux-x64')).toBe('cartridge-helper-linux-x64');
    expect(localAppFileName('windows-x64')).toBe('cartridge-helper-windows-x64.exe');
    expect(hostLocalAppPlatform('linux', 'x64')).toBe('linux-x64');
    expect(hostLocalAppPlatform('win32', 'x64')).toBe('windows-x64');
    expect(hostLocalAppPlatform('freebsd', 'x64')).toBeUndefined();
  });
});

describe('GET /api/local-app', () => {
  const expected = (): LocalAppDownloads => ({
    downloads: [
      { platform: 'linux-x64', fileName: 'cartridge-helper-linux-x64', size: linuxBytes.length, url: `${server.url}/api/local-app/linux-x64` },
      { platform: 'linux-arm64', fileName: 'cartridge-helper-linux-arm64', size: linuxBytes.length, url: `${server.url}/api/local-app/linux-arm64` },
      { platform: 'windows-x64', fileName: 'cartridge-helper-windows-x64.exe', size: windowsBytes.length, url: `${server.url}/api/local-app/windows-x64` },
    ],
  });

  test('lists only the platforms whose file exists, with absolute URLs, to every kind of caller', async () => {
    for (const token of [undefined, user.token, apiToken]) {
      const response = await server.fetch('/api/local-app', { token });
      expect(response.status).toBe(200);
      const body = await response.json();
      expect(localAppDownloadsSchema.parse(body)).toEqual(expected());
      expect(body).toEqual(expected());
    }
  });

  test('through the typed REST client and tRPC: the same list', async () => {
    expect(await createApiClient({ baseUrl: server.url }).call(routes.localApp.downloads)).toEqual(expected());
    expect(await server.trpc().localApp.downloads.query()).toEqual(expected());
    expect(await server.trpc(apiToken).localApp.downloads.query()).toEqual(expected());
  });

  test('URLs follow PUBLIC_URL', async () => {
    const other = await startTestServer({ LOCAL_APP_DIR: dir, PUBLIC_URL: 'https://games.example.com/' });
    try {
      const body = await (await other.fetch('/api/local-app')).json();
      expect(body.downloads.map((item: { url: string }) => item.url)).toEqual([
        'https://games.example.com/api/local-app/linux-x64',
        'https://games.example.com/api/local-app/linux-arm64',
        'https://games.example.com/api/local-app/windows-x64',
      ]);
    } finally {
      await other.stop();
    }
  });

  test('an empty or missing folder lists nothing', async () => {
    const other = await startTestServer({ LOCAL_APP_DIR: join(dir, 'no-such-folder') });
    try {
      expect(await (await other.fetch('/api/local-app')).json()).toEqual({ downloads: [] });
    } finally {
      await other.stop();
    }
  });
});

describe('GET /api/local-app/{platform}', () => {
  test('sends the bytes with their length, as an attachment named for the platform, to every kind of caller', async () => {
    for (const token of [undefined, user.token, apiToken]) {
      const response = await server.fetch('/api/local-app/linux-x64', { token });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-length')).toBe(String(linuxBytes.length));
      expect(response.headers.get('content-type')).toBe('application/octet-stream');
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="cartridge-helper-linux-x64"; filename*=UTF-8''cartridge-helper-linux-x64`);
      expect(response.headers.get('accept-ranges')).toBe('bytes');
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(linuxBytes);
    }
    const windows = await server.fetch('/api/local-app/windows-x64');
    expect(windows.headers.get('content-disposition')).toContain('filename="cartridge-helper-windows-x64.exe"');
    expect(new Uint8Array(await windows.arrayBuffer())).toEqual(windowsBytes);
  });

  test('HEAD answers the headers without the bytes', async () => {
    const response = await server.fetch('/api/local-app/linux-x64', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(linuxBytes.length));
    expect(response.headers.get('content-disposition')).toContain('cartridge-helper-linux-x64');
    expect((await response.arrayBuffer()).byteLength).toBe(0);
    for (const platform of ['darwin-x64', 'amiga', '%E0%A4%A', '..%2Fcartridge-helper-secret']) {
      const missing = await server.fetch(`/api/local-app/${platform}`, { method: 'HEAD' });
      expect(missing.status).toBe(404);
    }
  });

  test('a range resumes a cut download', async () => {
    const response = await server.fetch('/api/local-app/linux-x64', { headers: { range: 'bytes=1000-' } });
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(`bytes 1000-${linuxBytes.length - 1}/${linuxBytes.length}`);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(linuxBytes.slice(1000));
  });

  test.each([
    ['a platform without its file', 'darwin-x64'],
    ['a folder with a platform name', 'darwin-arm64'],
    ['an unknown platform', 'amiga-68k'],
    ['the file name itself', 'cartridge-helper-linux-x64'],
    ['upper case', 'LINUX-X64'],
    ['../ in the platform', '..%2Fcartridge-helper-secret'],
    ['../ before a platform', '..%2Fbuilds%2Fcartridge-helper-linux-x64'],
    ['../ with the prefix', '..%2F..%2Fetc%2Fpasswd'],
    ['a NUL', 'linux-x64%00'],
  ])('404 not_found for %s', async (_, platform) => {
    for (const token of [undefined, apiToken]) {
      const response = await server.fetch(`/api/local-app/${platform}`, { token });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ code: 'not_found', message: 'platform not found' });
    }
  });

  test('a malformed escape is refused before the service (Elysia decodes parameters)', async () => {
    const response = await server.fetch('/api/local-app/%E0%A4%A');
    expect(response.status).toBe(400);
    expect((await response.json()).code).toBe('bad_param');
  });

  test('a longer path is not the route', async () => {
    for (const path of ['/api/local-app/linux-x64/extra', '/api/local-app/linux-x64/..%2F..%2Fsecret']) {
      const response = await server.fetch(path);
      expect(response.status).toBe(404);
      expect((await response.json()).code).toBe('not_found');
    }
  });
});

describe('building the server platform on demand (from source, default folder)', () => {
  const host = hostLocalAppPlatform();

  test.skipIf(!host)('the first request builds it once while others wait; a failure is a 503 not_supported and is not retried at once', async () => {
    const buildDir = mkdtempSync(join(tmpdir(), 'cartridge-local-app-build-'));
    const other = await startTestServer({ LOCAL_APP_DIR: buildDir });
    // What a server started from source without LOCAL_APP_DIR (outside bun test) does.
    other.deps.config.localApp.buildOnDemand = true;
    let builds = 0;
    let fail = true;
    const restore = setLocalAppBuilder(async (platform, into) => {
      builds++;
      await Bun.sleep(150);
      if (fail) throw new Error('compiler exploded');
      writeFileSync(join(into, localAppFileName(platform)), `built ${platform}`);
    });
    try {
      const failed = await other.fetch(`/api/local-app/${host}`);
      expect(failed.status).toBe(503);
      expect(await failed.json()).toMatchObject({ code: 'not_supported', details: { platform: host } });
      // The listing leaves it out instead of failing; a failed build is not started again right away.
      expect(await (await other.fetch('/api/local-app')).json()).toEqual({ downloads: [] });
      expect((await other.fetch(`/api/local-app/${host}`)).status).toBe(503);
      expect(builds).toBe(1);

      fail = false;
      setLocalAppBuilder(async (platform, into) => {
        builds++;
        await Bun.sleep(150);
        writeFileSync(join(into, localAppFileName(platform)), `built ${platform}`);
      });
      const answers = await Promise.all([other.fetch(`/api/local-app/${host}`), other.fetch('/api/local-app'), other.fetch(`/api/local-app/${host}`)]);
      expect(answers.map((response) => response.status)).toEqual([200, 200, 200]);
      expect(await answers[0]!.text()).toBe(`built ${host}`);
      expect((await answers[1]!.json()).downloads.map((item: { platform: string }) => item.platform)).toEqual([host]);
      expect(builds).toBe(2);
      // Built: not again.
      expect((await other.fetch(`/api/local-app/${host}`)).status).toBe(200);
      expect(builds).toBe(2);
      // Other platforms are never built on demand.
      const otherPlatform = host === 'linux-arm64' ? 'darwin-x64' : 'linux-arm64';
      expect((await other.fetch(`/api/local-app/${otherPlatform}`)).status).toBe(404);
      expect(builds).toBe(2);
    } finally {
      restore();
      await other.stop();
      rmSync(buildDir, { recursive: true, force: true });
    }
  });
});
