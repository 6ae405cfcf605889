import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeIndex, readAllFiles, readArchive } from '../../src/shared/archive/index.ts';
import { jobs } from '../../src/server/db/schema/index.ts';
import { openArchiveStream } from '../../src/server/domains/packages/records/package-content.ts';
import { bufferedBodyLimit } from '../../src/server/http/range.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createProject, makeTeam, type Team, type TestProject } from '../support/projects.ts';
import { uploadPackage, waitForJob } from '../support/packages.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { packageDownloadName, packageTitle } from '../../src/shared/packages/package-name.ts';
import { trpcFailure } from '../support/trpc-failure.ts';
import { downloadUrl, fetchBytes, publishPackages, sha256Hex, uploadTree, type TreeSpec } from './packages-downloads-support.ts';

async function expectTrpcError(call: Promise<unknown>, code: string) {
  expect((await trpcFailure(call)).code).toBe(code);
}

const big = new Uint8Array(700_000).map((_, i) => (i * 7919) % 251);
const tree: TreeSpec = {
  files: {
    'run.sh': { content: '#!/bin/sh\necho run\n', executable: true },
    'data/big.bin': { content: big },
    'data/copy.bin': { content: big },
    'data/héllo wörld.txt': { content: 'hello\n' },
    'empty.txt': { content: '' },
  },
  symlinks: { latest: 'data/big.bin' },
};

let server: TestServer;
let team: Team;
let packageId: string;
let archive: Uint8Array;
const base = () => `/api/projects/${team.project.id}/packages/${packageId}`;

beforeAll(async () => {
  server = await startTestServer();
  team = await makeTeam(server);
  const uploaded = await uploadTree(server, team.owner, team.project.id, tree, { title: 'Linux x64', compression: 1 });
  packageId = uploaded.pkg.id;
  archive = uploaded.archive;
});
afterAll(() => server?.stop());

async function zipBytes(): Promise<Uint8Array> {
  const url = await downloadUrl(server, `${base()}/download?filter=zip`, team.tester.token);
  const { status, bytes } = await fetchBytes(url);
  expect(status).toBe(200);
  return bytes;
}

describe('download URLs', () => {
  test('members get signed URLs of the archive, its index and a ZIP that work without a bearer', async () => {
    const url = await downloadUrl(server, `${base()}/download`, team.tester.token);
    expect(url).toMatch(new RegExp(`^${server.url}/api/files/${packageId}/archive/\\d+/[\\w-]{43}/`));
    const expires = Number(new URL(url).pathname.split('/')[5]);
    expect(expires * 1000 - Date.now()).toBeGreaterThan(59 * 60 * 1000);
    expect(expires * 1000 - Date.now()).toBeLessThanOrEqual(60 * 60 * 1000);
    const response = await fetchBytes(url);
    expect(response.status).toBe(200);
    expect(Buffer.from(response.bytes).equals(Buffer.from(archive))).toBe(true);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent(team.project.title)}%20Linux%20x64.crt`);
    const read = await readArchive(new Blob([response.bytes as Uint8Array<ArrayBuffer>]).stream());
    const files = await readAllFiles(read);
    expect(files.get('data/big.bin')).toEqual(big);

    const index = await fetchBytes(await downloadUrl(server, `${base()}/download?filter=index`, team.tester.token));
    expect(index.status).toBe(200);
    const pkg = (await (await server.fetch(base(), { token: team.tester.token })).json()) as { indexHash: string };
    expect(sha256Hex(index.bytes)).toBe(pkg.indexHash);
    expect(decodeIndex(index.bytes).root.entries.has('run.sh')).toBe(true);
  });

  test('the archive equals what openArchiveStream regenerates', async () => {
    const regenerated = new Uint8Array(await new Response(await openArchiveStream(server.deps, packageId)).arrayBuffer());
    const served = await fetchBytes(await downloadUrl(server, `${base()}/download`, team.owner.token));
    expect(Buffer.from(served.bytes).equals(Buffer.from(regenerated))).toBe(true);
  });

  test('the same URLs over tRPC', async () => {
    const { url } = await server.trpc(team.developer.token).packageDownloads.url.query({ project: team.project.id, package: packageId, filter: 'zip' });
    expect(url).toContain(`/api/files/${packageId}/zip/`);
    expect((await fetchBytes(url)).bytes).toEqual(await zipBytes());
    await expectTrpcError(server.trpc(team.outsider.token).packageDownloads.url.query({ project: team.project.id, package: packageId }), 'not_found');
    await expectTrpcError(server.trpc().packageDownloads.url.query({ project: team.project.id, package: packageId, filter: 'tar' as 'zip' }), 'bad_param');
  });

  test('private packages are not_found to outsiders and visitors; a bad filter is bad_param', async () => {
    expect((await server.fetch(`${base()}/download`, { token: team.outsider.token })).status).toBe(404);
    expect((await server.fetch(`${base()}/download`)).status).toBe(404);
    expect((await server.fetch(`/api/projects/${team.project.id}/packages/nope/download`, { token: team.owner.token })).status).toBe(404);
    const bad = await server.fetch(`${base()}/download?filter=tar`, { token: team.owner.token });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe('bad_param');
  });

  test('a package still uploading is not_finalized', async () => {
    const created = await server.fetch(`/api/projects/${team.project.id}/packages`, { method: 'POST', token: team.owner.token, json: { size: 100, tags: [] } });
    const { id } = (await created.json()) as { id: string };
    const response = await server.fetch(`/api/projects/${team.project.id}/packages/${id}/download`, { token: team.owner.token });
    expect(response.status).toBe(409);
    expect(((await response.json()) as { code: string }).code).toBe('not_finalized');
  });

  test('forged, altered and expired URLs fail, with CORS headers', async () => {
    const url = await downloadUrl(server, `${base()}/download?filter=zip`, team.owner.token);
    const parts = url.split('/');
    const signature = parts[parts.length - 2]!;
    const forged = url.replace(signature, `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`);
    const wrong = await fetch(forged);
    expect(wrong.status).toBe(404);
    expect(wrong.headers.get('access-control-allow-origin')).toBe('*');
    expect((await fetch(url.replace('/zip/', '/archive/'))).status).toBe(404); // signature covers the kind
    expect((await fetch(url.replace(`/${packageId}/`, '/otherpackage/'))).status).toBe(404);
    const expires = parts[parts.length - 3]!;
    expect((await fetch(url.replace(`/${expires}/`, `/${Number(expires) + 1}/`))).status).toBe(404);
    expect((await fetch(url.replace('/zip/', '/tar/'))).status).toBe(404);
    const { signedFileUrl } = await import('../../src/server/domains/packages/downloads/signed-file-url.ts');
    const expired = signedFileUrl(server.url, server.deps.keys, packageId, 'zip', 'x.zip', -10);
    const response = await fetch(expired);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe('wrong_auth');
    // The unsigned public route serves only public packages.
    expect((await fetch(`${server.url}/api/files/${packageId}/zip/public/x.zip`)).status).toBe(404);
  });

  test('hostile path segments get a catalogued refusal with CORS, never a 500; a bearer of any caller changes nothing', async () => {
    const url = await downloadUrl(server, `${base()}/download?filter=zip`, team.owner.token);
    const path = new URL(url).pathname;
    const [, , , id, kind, expires, signature, name] = path.split('/');
    const hostile = ['a%00b', '%1B%5B31m', 'x'.repeat(4000), '..%2F..%2Fetc%2Fpasswd', '%E2%80%AE', '-1', '1e309', '%20'];
    const stranger = await registerUser(server);
    for (const value of hostile) {
      // The name is cosmetic: the signed file answers under its own name whatever the last segment says.
      const named = await fetch(`${server.url}${path.split('/').slice(0, 7).join('/')}/${value}`, { method: 'HEAD' });
      expect(named.status).toBe(200);
      expect(named.headers.get('content-disposition')).toContain(`filename*=UTF-8''${name}`);
      for (const at of [3, 4, 5, 6, 7]) {
        const parts = [...path.split('/')];
        parts[at] = value;
        for (const target of [...(at === 7 ? [] : [parts.join('/')]), `/api/files/${at === 3 ? value : id}/${at === 4 ? value : kind}/public/${at === 7 ? value : name}`]) {
          for (const method of ['GET', 'HEAD']) {
            const response = await fetch(`${server.url}${target}`, { method });
            expect(`${method} ${target.slice(0, 120)} → ${response.status}`).toMatch(/ → (400|401|404)$/);
            expect(response.headers.get('access-control-allow-origin')).toBe('*');
            if (method === 'GET') expect(['bad_param', 'not_found', 'wrong_auth']).toContain(((await response.json()) as { code: string }).code);
          }
        }
      }
    }
    // The signature is the authorisation: the same answer with no bearer, the owner's, a stranger's or an unknown one.
    const forged = url.replace(`/${signature}/`, `/${signature!.slice(0, -2)}${signature!.endsWith('AA') ? 'BB' : 'AA'}/`);
    for (const authorization of [undefined, `Bearer ${team.owner.token}`, `Bearer ${stranger.token}`, 'Bearer cs_unknown']) {
      const headers: Record<string, string> = authorization ? { authorization } : {};
      expect((await fetch(url, { headers, method: 'HEAD' })).status).toBe(200);
      expect((await fetch(forged, { headers })).status).toBe(404);
      expect((await fetch(`${server.url}/api/files/${packageId}/zip/public/x.zip`, { headers })).status).toBe(404);
    }
    expect(expires).toMatch(/^\d+$/);
  });
});

/** The UTF-8 file name of a Content-Disposition (filename*). */
function dispositionName(response: { headers: Headers }): string {
  const header = response.headers.get('content-disposition') ?? '';
  return decodeURIComponent(header.match(/filename\*=UTF-8''(\S+)$/)?.[1] ?? '');
}

describe('one name per package (src/shared/packages/package-name.ts)', () => {
  test('lists, the version, the store and every download name use the title the tags give, without the version', async () => {
    const project = await createProject(server, team.owner, 'Star Miner');
    const pkg = await uploadPackage(server, team.owner, project.id, { 'game.x86_64': 'x' }, { tags: ['bits:64', 'os:linux', 'arch:x86'] });
    const { branchId, versionId } = await publishPackages(server, team.owner, project, [pkg.id]);
    expect((await server.fetch(`/api/projects/${project.id}/versions/${versionId}`, { method: 'PATCH', token: team.owner.token, json: { title: '1.0.1' } })).status).toBe(200);
    const name = 'Linux x86 64-bit';
    expect(packageTitle({ title: null, tags: pkg.tags })).toBe(name);
    const projectBase = `/api/projects/${project.id}`;
    const shown = async (path: string) => ((await (await server.fetch(path, { token: team.owner.token })).json()) as { id: string; title: string }[]).find((item) => item.id === pkg.id)?.title;
    expect(await shown(`${projectBase}/packages`)).toBe(name);
    expect(await shown(`${projectBase}/versions/${versionId}/packages`)).toBe(name);
    expect(((await (await server.fetch(`${projectBase}/packages/${pkg.id}`)).json()) as { title: string }).title).toBe(name);

    const zipName = 'Star Miner Linux x86 64-bit.zip';
    expect(packageDownloadName(project.title, pkg)).toBe(zipName);
    const zip = await fetchBytes(await downloadUrl(server, `${projectBase}/packages/${pkg.id}/download?filter=zip`, team.owner.token));
    expect(dispositionName(zip)).toBe(zipName);
    const storeBase = `/api/store/projects/${project.id}/branches/${branchId}/packages/${pkg.id}`;
    expect(dispositionName(await fetchBytes(await downloadUrl(server, `${storeBase}/download?filter=zip`)))).toBe(zipName);
    expect(dispositionName(await fetchBytes(await downloadUrl(server, `${projectBase}/packages/${pkg.id}/download`, team.owner.token)))).toBe('Star Miner Linux x86 64-bit.crt');
    expect(dispositionName(await fetchBytes(await downloadUrl(server, `${projectBase}/packages/${pkg.id}/download?filter=index`, team.owner.token)))).toBe('Star Miner Linux x86 64-bit.crt-index');
    expect(dispositionName(await server.fetch(`${storeBase}/torrent`))).toBe('Star Miner Linux x86 64-bit.torrent');

    // Its own title, once set, is the name everywhere, downloads included.
    expect((await server.fetch(`${projectBase}/packages/${pkg.id}`, { method: 'PATCH', token: team.owner.token, json: { title: 'Steam Deck build' } })).status).toBe(200);
    expect(await shown(`${projectBase}/versions/${versionId}/packages`)).toBe('Steam Deck build');
    expect(dispositionName(await fetchBytes(await downloadUrl(server, `${storeBase}/download?filter=zip`)))).toBe('Star Miner Steam Deck build.zip');
  });
});

describe('Range', () => {
  test('first bytes, middle, suffix, open end, HEAD, If-Range and 416 on every kind', async () => {
    for (const filter of ['', '?filter=zip', '?filter=index']) {
      const url = await downloadUrl(server, `${base()}/download${filter}`, team.owner.token);
      const whole = await fetchBytes(url);
      const size = whole.bytes.length;
      const etag = whole.headers.get('etag')!;
      expect(etag).toMatch(/^"[0-9a-f]{64}-(archive|zip|index)"$/);
      const first = await fetchBytes(url, { headers: { range: 'bytes=0-99' } });
      expect(first.status).toBe(206);
      expect(first.headers.get('content-range')).toBe(`bytes 0-99/${size}`);
      expect(first.bytes).toEqual(whole.bytes.subarray(0, 100));
      const middle = Math.floor(size / 3);
      const mid = await fetchBytes(url, { headers: { range: `bytes=${middle}-${middle + 65_535}` } });
      expect(mid.status).toBe(206);
      expect(mid.bytes).toEqual(whole.bytes.subarray(middle, Math.min(size, middle + 65_536)));
      const suffix = await fetchBytes(url, { headers: { range: 'bytes=-100' } });
      expect(suffix.headers.get('content-range')).toBe(`bytes ${size - 100}-${size - 1}/${size}`);
      expect(suffix.bytes).toEqual(whole.bytes.subarray(size - 100));
      const open = await fetchBytes(url, { headers: { range: `bytes=${size - 10}-` } });
      expect(open.bytes).toEqual(whole.bytes.subarray(size - 10));
      const unsatisfiable = await fetchBytes(url, { headers: { range: `bytes=${size}-` } });
      expect(unsatisfiable.status).toBe(416);
      expect(unsatisfiable.headers.get('content-range')).toBe(`bytes */${size}`);
      const stale = await fetchBytes(url, { headers: { range: 'bytes=0-9', 'if-range': '"other"' } });
      expect(stale.status).toBe(200);
      expect(stale.bytes.length).toBe(size);
      const head = await fetch(url, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(size));
      expect(head.headers.get('accept-ranges')).toBe('bytes');
      expect((await fetch(url, { headers: { 'if-none-match': etag } })).status).toBe(304);
    }
  });

  test('every 1000-byte window of the ZIP equals the whole download', async () => {
    const url = await downloadUrl(server, `${base()}/download?filter=zip`, team.owner.token);
    const whole = await zipBytes();
    for (let start = 0; start < whole.length; start += 97_331) {
      const part = await fetchBytes(url, { headers: { range: `bytes=${start}-${start + 999}` } });
      expect(part.bytes).toEqual(whole.subarray(start, start + 1000));
    }
  });
});

describe('ZIP', () => {
  test('byte-identical across requests and across servers; unzip -t passes; files, modes and symlinks come back', async () => {
    const first = await zipBytes();
    expect(await zipBytes()).toEqual(first);
    const other = await startTestServer();
    try {
      const owner = await registerUser(other);
      const project = await createProject(other, owner, team.project.title);
      const { pkg } = await uploadTree(other, owner, project.id, tree, { title: 'Linux x64', compression: 0 });
      const url = await downloadUrl(other, `/api/projects/${project.id}/packages/${pkg.id}/download?filter=zip`, owner.token);
      expect(sha256Hex((await fetchBytes(url)).bytes)).toBe(sha256Hex(first));
    } finally {
      await other.stop();
    }
    const folder = mkdtempSync(join(tmpdir(), 'cartridge-zip-'));
    try {
      await Bun.write(join(folder, 'package.zip'), first);
      const tested = Bun.spawnSync(['unzip', '-t', join(folder, 'package.zip')]);
      expect(tested.stdout.toString()).toContain('No errors detected');
      expect(tested.exitCode).toBe(0);
      const extracted = Bun.spawnSync(['unzip', '-q', join(folder, 'package.zip'), '-d', join(folder, 'out')]);
      expect(extracted.exitCode).toBe(0);
      const out = join(folder, 'out');
      expect(new Uint8Array(readFileSync(join(out, 'data/big.bin')))).toEqual(big);
      expect(new Uint8Array(readFileSync(join(out, 'data/copy.bin')))).toEqual(big);
      expect(readFileSync(join(out, 'data/héllo wörld.txt'), 'utf8')).toBe('hello\n');
      expect(readFileSync(join(out, 'empty.txt')).length).toBe(0);
      expect(statSync(join(out, 'run.sh')).mode & 0o777).toBe(0o755);
      expect(statSync(join(out, 'data/big.bin')).mode & 0o777).toBe(0o644);
      expect(readlinkSync(join(out, 'latest'))).toBe('data/big.bin');
      const python = Bun.spawnSync([
        'python3',
        '-c',
        `import zipfile,sys
z=zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
for i in z.infolist(): print(i.filename, oct(i.external_attr>>16), i.date_time, i.compress_type, i.flag_bits & 0x800)`,
        join(folder, 'package.zip'),
      ]);
      expect(python.exitCode).toBe(0);
      const lines = python.stdout.toString().trim().split('\n');
      expect(lines).toEqual([
        "data/ 0o40755 (1980, 1, 1, 0, 0, 0) 0 2048",
        "data/big.bin 0o100644 (1980, 1, 1, 0, 0, 0) 0 2048",
        "data/copy.bin 0o100644 (1980, 1, 1, 0, 0, 0) 0 2048",
        "data/héllo wörld.txt 0o100644 (1980, 1, 1, 0, 0, 0) 0 2048",
        "empty.txt 0o100644 (1980, 1, 1, 0, 0, 0) 0 2048",
        "latest 0o120777 (1980, 1, 1, 0, 0, 0) 0 2048",
        "run.sh 0o100755 (1980, 1, 1, 0, 0, 0) 0 2048",
      ]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  test('the ZIP file written in one pass (CRC-32s unknown at the start) equals the ZIP built from its layout', async () => {
    const { findPackageRow } = await import('../../src/server/domains/packages/records/package-rows.ts');
    const { cachedZipFile, zipFileOf } = await import('../../src/server/domains/packages/downloads/download-files.ts');
    const { readVirtualRange } = await import('../../src/server/domains/packages/downloads/zip/segments.ts');
    const { rawChunkLoader } = await import('../../src/server/domains/packages/downloads/zip/chunks.ts');
    const row = (await findPackageRow(server.deps.db, packageId))!;
    const crcKey = `packages/${packageId}/zip-crc`;
    // Nothing made yet: no file, no stored CRC-32s.
    await server.deps.fileCache.forget(packageId);
    await server.deps.storage.delete(crcKey);
    const path = await cachedZipFile(server.deps, row, true);
    expect(path).toBeDefined();
    const written = new Uint8Array(readFileSync(path!));
    expect(await server.deps.storage.stat(crcKey)).toBeDefined(); // stored by the same pass
    const layout = await zipFileOf(server.deps, row);
    const built = new Uint8Array(await new Response(readVirtualRange(layout, 0, layout.size, rawChunkLoader(server.deps, row.id, (row.compression ?? 0) as 0 | 1))).arrayBuffer());
    expect(sha256Hex(written)).toBe(sha256Hex(built));
    expect(sha256Hex(await zipBytes())).toBe(sha256Hex(built));
  });

  test('the CRC-32s are cached in storage, and a damaged cache is recomputed', async () => {
    const key = `packages/${packageId}/zip-crc`;
    const before = await zipBytes();
    expect(await server.deps.storage.stat(key)).toBeDefined();
    await server.deps.storage.put(key, new Uint8Array([1, 2, 3]));
    // Without the ready-made ZIP file (dropped from the download cache) the ZIP is built from its layout again.
    await server.deps.fileCache.forget(packageId);
    expect(await zipBytes()).toEqual(before);
    expect((await server.deps.storage.stat(key))!.size).toBeGreaterThan(40);
  });

  test('an empty package is a valid empty ZIP', async () => {
    const pkg = await uploadPackage(server, team.owner, team.project.id, {});
    const url = await downloadUrl(server, `/api/projects/${team.project.id}/packages/${pkg.id}/download?filter=zip`, team.owner.token);
    const { bytes } = await fetchBytes(url);
    expect(bytes.length).toBe(22);
    expect([...bytes.subarray(0, 4)]).toEqual([0x50, 0x4b, 0x05, 0x06]);
  });
});

describe('space', () => {
  test('size, stored size and the bytes no other package of the project holds (REST and tRPC)', async () => {
    const project: TestProject = await createProject(server, team.owner);
    const shared = new Uint8Array(300_000).map((_, i) => (i * 31) % 253);
    const a = await uploadPackage(server, team.owner, project.id, { 'shared.bin': shared, 'a.txt': 'only in a' });
    const space = (await (await server.fetch(`/api/projects/${project.id}/packages/${a.id}/space`, { token: team.owner.token })).json()) as Record<string, number>;
    expect(space).toEqual({ size: 300_000 + 9, storedSize: a.storedSize!, exclusiveSize: a.storedSize! });
    await uploadPackage(server, team.owner, project.id, { 'shared.bin': shared, 'b.txt': 'only in b' });
    const after = await server.trpc(team.owner.token).packageDownloads.space.query({ project: project.id, package: a.id });
    expect(after.size).toBe(300_009);
    expect(after.storedSize).toBe(a.storedSize!);
    expect(after.exclusiveSize).toBe(9); // only a.txt's chunk is its own
    expect((await server.fetch(`/api/projects/${project.id}/packages/${a.id}/space`, { token: team.outsider.token })).status).toBe(404);
  });
});

describe('store routes', () => {
  let owner: TestUser;
  let project: TestProject;
  let storePackage: string;
  let branchId: string;
  const storeBase = () => `/api/store/projects/${project.id}/branches/${branchId}/packages/${storePackage}`;

  beforeAll(async () => {
    owner = await registerUser(server);
    project = await createProject(server, owner, 'Store Game');
    storePackage = (await uploadTree(server, owner, project.id, tree, { title: 'Web' })).pkg.id;
    ({ branchId } = await publishPackages(server, owner, project, [storePackage]));
  });

  test('anyone gets the URL, torrent and space of a package of a public branch current version', async () => {
    const url = await downloadUrl(server, `${storeBase()}/download?filter=zip`);
    expect(sha256Hex((await fetchBytes(url)).bytes)).toBe(sha256Hex(await zipBytes()));
    const { url: trpcUrl } = await server.trpc().packageDownloads.storeUrl.query({ project: project.id, branch: branchId, package: storePackage });
    expect(trpcUrl).toContain('/archive/');
    const space = (await (await server.fetch(`${storeBase()}/space`)).json()) as { size: number };
    expect(space.size).toBe(big.length * 2 + 19 + 6);
    expect((await server.trpc().packageDownloads.storeSpace.query({ project: project.id, branch: branchId, package: storePackage })).size).toBe(space.size);
    const torrent = await server.fetch(`${storeBase()}/torrent`);
    expect(torrent.status).toBe(200);
    expect(torrent.headers.get('content-type')).toBe('application/x-bittorrent');
    // Public: the project route works for visitors too.
    expect((await server.fetch(`/api/projects/${project.id}/packages/${storePackage}/download`)).status).toBe(200);
  });

  test('a package that is not in the current version, a private branch or project, or another branch is not_found', async () => {
    const newer = (await uploadTree(server, owner, project.id, { files: { 'b.txt': { content: 'b' } } })).pkg.id;
    const unpublished = (await uploadTree(server, owner, project.id, { files: { 'c.txt': { content: 'c' } } })).pkg.id;
    const path = (pkg: string, branch = branchId) => `/api/store/projects/${project.id}/branches/${branch}/packages/${pkg}/download`;
    expect((await server.fetch(path(unpublished), { token: owner.token })).status).toBe(404);
    await publishPackages(server, owner, project, [newer], { branchId });
    expect((await server.fetch(path(newer))).status).toBe(200);
    expect((await server.fetch(path(storePackage), { token: owner.token })).status).toBe(404); // no longer current
    expect((await server.fetch(`/api/store/projects/${project.id}/branches/${branchId}/packages/${storePackage}/space`)).status).toBe(404);
    await expectTrpcError(server.trpc().packageDownloads.storeTorrent.query({ project: project.id, branch: branchId, package: storePackage }), 'not_found');
    const hidden = await publishPackages(server, owner, project, [storePackage], { publicBranch: false, publicProject: false });
    expect((await server.fetch(path(storePackage, hidden.branchId), { token: owner.token })).status).toBe(404);
    expect((await server.fetch(path(newer, 'nobranch'))).status).toBe(404);
    await server.fetch(`/api/projects/${project.id}/branches/${branchId}`, { method: 'PATCH', token: owner.token, json: { isPublic: false } });
    expect((await server.fetch(path(newer))).status).toBe(404);
  });
});

describe('ZIP64', () => {
  test('a file over 4 GiB, an offset past 4 GiB and more than 65535 entries use ZIP64 records python reads', async () => {
    const { zipLayout } = await import('../../src/server/domains/packages/downloads/zip/layout.ts');
    const { crc32 } = await import('node:zlib');
    const { openSync, writeSync, ftruncateSync, closeSync } = await import('node:fs');
    const chunkSize = 256 * 1024;
    const bigSize = 5 * 1024 ** 3 + 123;
    const bigChunks = Array.from({ length: Math.ceil(bigSize / chunkSize) }, (_, i) => ({
      hash: new Uint8Array(32).fill(i % 251),
      size: Math.min(chunkSize, bigSize - i * chunkSize),
      compressedSize: Math.min(chunkSize, bigSize - i * chunkSize),
    }));
    const hi = new TextEncoder().encode('hi');
    const entries = new Map<string, any>([
      ['big.bin', { kind: 'file', name: 'big.bin', size: bigSize, mode: 0, chunks: bigChunks }],
      ['z.txt', { kind: 'file', name: 'z.txt', size: 2, mode: 1, chunks: [{ hash: new Uint8Array(32).fill(7), size: 2, compressedSize: 2 }] }],
    ]);
    const many = new Map<string, any>();
    for (let i = 0; i < 70_000; i++) many.set(`f${String(i).padStart(5, '0')}`, { kind: 'file', name: `f${String(i).padStart(5, '0')}`, size: 0, mode: 0, chunks: [] });
    entries.set('many', { kind: 'directory', name: 'many', size: 0, mode: 0, entries: many });
    const index = { chunking: 1 as const, compression: 0 as const, root: { kind: 'directory' as const, name: '', size: bigSize + 2, mode: 0, entries } };
    const crcs = new Uint32Array(2 + 70_000);
    crcs[0] = 12345;
    crcs[70_001] = crc32(hi) >>> 0; // files in index order: big.bin, many/*, z.txt
    const layout = zipLayout(index, crcs);
    const folder = mkdtempSync(join(tmpdir(), 'cartridge-zip64-'));
    try {
      // A sparse file: headers at their offsets, the 5 GiB of file data left as holes.
      const path = join(folder, 'big.zip');
      const fd = openSync(path, 'w');
      layout.segments.forEach((segment, i) => {
        const bytes = segment.bytes ?? (segment.chunk.size === 2 ? hi : undefined);
        if (bytes) writeSync(fd, bytes, 0, bytes.byteLength, layout.offsets[i]!);
      });
      ftruncateSync(fd, layout.size);
      closeSync(fd);
      const python = Bun.spawn(
        [
          'python3',
          '-c',
          `import zipfile,sys
z=zipfile.ZipFile(sys.argv[1])
infos=z.infolist()
big=z.getinfo('big.bin'); last=z.getinfo('z.txt')
print(len(infos), big.file_size, last.header_offset > 2**32, z.read('z.txt').decode(), oct(last.external_attr>>16))`,
          path,
        ],
        { stdout: 'pipe', stderr: 'pipe' },
      );
      const [code, out, err] = await Promise.all([python.exited, new Response(python.stdout).text(), new Response(python.stderr).text()]);
      expect(code, err).toBe(0);
      expect(out.trim()).toBe(`70003 ${bigSize} True hi 0o100755`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('prepared downloads, URL lifetime and large bodies', () => {
  test('a job computes the ZIP CRC-32s and the torrent after finalize, before any download', async () => {
    const pkg = await uploadPackage(server, team.owner, team.project.id, { 'a.bin': big, 'b.txt': 'prepared\n' });
    const [job] = await server.deps.db.select().from(jobs).where(and(eq(jobs.kind, 'package_prepare'), eq(jobs.dedupeKey, `package:${pkg.id}`)));
    expect(job).toBeDefined();
    const done = await waitForJob(server, job!.id);
    expect(done.status).toBe('succeeded');
    expect(done.output).toEqual({ prepared: true });
    expect(await server.deps.storage.stat(`packages/${pkg.id}/zip-crc`)).toBeDefined();
    expect(await server.deps.storage.stat(`packages/${pkg.id}/torrent`)).toBeDefined();
  });

  test('DOWNLOAD_URL_MINUTES sets how long download URLs work', async () => {
    const other = await startTestServer({ DOWNLOAD_URL_MINUTES: '5' });
    try {
      const owner = await registerUser(other);
      const project = await createProject(other, owner);
      const pkg = await uploadPackage(other, owner, project.id, { 'a.txt': 'short-lived\n' });
      const url = await downloadUrl(other, `/api/projects/${project.id}/packages/${pkg.id}/download`, owner.token);
      const expires = Number(new URL(url).pathname.split('/')[5]);
      expect(expires * 1000 - Date.now()).toBeGreaterThan(4 * 60 * 1000);
      expect(expires * 1000 - Date.now()).toBeLessThanOrEqual(5 * 60 * 1000);
      expect((await fetchBytes(url)).status).toBe(200);
    } finally {
      await other.stop();
    }
  });

  async function largeZip(target: TestServer, owner: TestUser, projectId: string) {
    const size = bufferedBodyLimit + 3 * 1024 * 1024 + 17;
    const content = new Uint8Array(size);
    for (let offset = 0; offset < size; offset += 65536) crypto.getRandomValues(content.subarray(offset, Math.min(size, offset + 65536)));
    const pkg = await uploadPackage(target, owner, projectId, { 'big.bin': content }, { compression: 1 });
    const url = await downloadUrl(target, `/api/projects/${projectId}/packages/${pkg.id}/download?filter=zip`, owner.token);
    const head = await fetch(url, { method: 'HEAD' });
    const zipSize = Number(head.headers.get('content-length'));
    expect(zipSize).toBeGreaterThan(size);
    const whole = await fetchBytes(url);
    expect(whole.status).toBe(200);
    expect(whole.bytes.length).toBe(zipSize);
    const headerSize = 30 + 'big.bin'.length; // the local header of the only entry
    expect(sha256Hex(whole.bytes.subarray(headerSize, headerSize + size))).toBe(sha256Hex(content));
    return { pkg, url, zipSize, whole };
  }

  test('a ZIP over the in-memory limit comes from the download cache with its Content-Length, also for large ranges', async () => {
    const { pkg, url, zipSize, whole } = await largeZip(server, team.owner, team.project.id);
    expect(whole.headers.get('content-length')).toBe(String(zipSize));
    const cached = readdirSync(server.deps.config.downloads.cacheDir).filter((name) => name.startsWith(pkg.id));
    expect(cached).toHaveLength(1);
    expect(cached[0]).toMatch(new RegExp(`^${pkg.id}-[0-9a-f]{16}-r2\\.zip$`)); // -r2: the ZIP writer's rules (download-files.ts)
    expect(statSync(join(server.deps.config.downloads.cacheDir, cached[0]!)).size).toBe(zipSize);
    const from = 1000;
    const large = await fetchBytes(url, { headers: { range: `bytes=${from}-` } });
    expect(large.status).toBe(206);
    expect(large.headers.get('content-length')).toBe(String(zipSize - from));
    expect(large.headers.get('content-range')).toBe(`bytes ${from}-${zipSize - 1}/${zipSize}`);
    expect(large.headers.get('content-type')).toBe('application/zip');
    expect(large.headers.get('content-disposition')).toContain('.zip');
    expect(Buffer.from(large.bytes).equals(Buffer.from(whole.bytes.subarray(from)))).toBe(true);
    const piece = await fetch(url, { headers: { range: `bytes=1000-${1000 + bufferedBodyLimit - 1}` } });
    expect(piece.status).toBe(206);
    expect(piece.headers.get('content-length')).toBe(String(bufferedBodyLimit));
    expect(Buffer.from(await piece.arrayBuffer()).equals(Buffer.from(whole.bytes.subarray(1000, 1000 + bufferedBodyLimit)))).toBe(true);
    // Deleting the package removes its cached files (chunk_gc).
    const removed = await server.fetch(`/api/projects/${team.project.id}/packages/${pkg.id}`, { method: 'DELETE', token: team.owner.token });
    expect(removed.status).toBeLessThan(300);
    const deadline = Date.now() + 20_000;
    while (readdirSync(server.deps.config.downloads.cacheDir).some((name) => name.startsWith(pkg.id)) && Date.now() < deadline) await Bun.sleep(50);
    expect(readdirSync(server.deps.config.downloads.cacheDir).filter((name) => name.startsWith(pkg.id))).toEqual([]);
  });

  test('with DOWNLOAD_CACHE_SIZE=0 a large ZIP still arrives whole (streamed, without a length)', async () => {
    const other = await startTestServer({ DOWNLOAD_CACHE_SIZE: '0' });
    try {
      const owner = await registerUser(other);
      const project = await createProject(other, owner);
      const { whole } = await largeZip(other, owner, project.id);
      expect(whole.headers.get('content-length')).toBeNull();
      expect(existsSync(other.deps.config.downloads.cacheDir)).toBe(false);
    } finally {
      await other.stop();
    }
  });

  test('Bun.serve still drops the Content-Length of stream bodies (when this fails, drop bufferedBodyLimit in range.ts)', async () => {
    const bytes = new Uint8Array(64 * 1024).fill(1);
    const probe = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: () => {
        // Pull-driven like readVirtualRange (a Blob's own stream is sent as the blob, with its length).
        let sent = false;
        const stream = new ReadableStream<Uint8Array>({
          async pull(controller) {
            await Bun.sleep(1);
            if (sent) return controller.close();
            sent = true;
            controller.enqueue(bytes);
          },
        });
        return new Response(stream, { headers: { 'content-length': String(bytes.length) } });
      },
    });
    try {
      const response = await fetch(`http://127.0.0.1:${probe.port}/`);
      expect((await response.arrayBuffer()).byteLength).toBe(bytes.length);
      expect(response.headers.get('content-length')).toBeNull();
    } finally {
      await probe.stop(true);
    }
  });
});
