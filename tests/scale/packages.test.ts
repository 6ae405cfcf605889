import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import bencode from 'bencode';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import type { Package, UploadInfo } from '../../src/shared/schemas/packages.ts';
import { jobs } from '../../src/server/db/schema/index.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { okJson, packArchiveOf, startCluster, uploadAcross, type Cluster, type ClusterNode } from '../support/cluster.ts';
import { putPart, splitParts } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';

/**
 * Two processes, one PostgreSQL database, one S3 bucket (tests/support/cluster.ts): a package whose
 * parts went to both processes is finalized on one and served by the other, byte for byte: the
 * archive, its index, the ZIP, the torrent and the browser-play origin. Downloads are signed URLs of
 * PUBLIC_URL (the load balancer's address); each is fetched from a chosen process.
 */

// Varied bytes over many 64 KiB parts; a file in several chunks.
const big = new Uint8Array(700_000).map((_, i) => ((i * 2654435761) >>> 24) ^ (i & 0xff));
const files: Record<string, Uint8Array | string> = {
  'index.html': '<!doctype html><title>Game</title><script src="game.js"></script>',
  'game.js': 'console.log("hello from both processes")',
  'data/big.bin': big,
  'data/héllo wörld.txt': 'hello\n',
  'empty.txt': '',
};

let cluster: Cluster;
let a: ClusterNode;
let b: ClusterNode;
let owner: TestUser;
let project: TestProject;

beforeAll(async () => {
  cluster = await startCluster({ env: { UPLOAD_PART_SIZE: String(64 * 1024) } });
  ({ a, b } = cluster);
  owner = await registerUser(a.server);
  project = await createProject(b.server, owner);
}, 90_000);
afterAll(() => cluster?.stop());

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
const sha1 = (bytes: Uint8Array) => new Bun.CryptoHasher('sha1').update(bytes).digest('hex');

async function bytesOf(url: string, init: RequestInit = {}): Promise<{ status: number; bytes: Uint8Array; headers: Headers }> {
  const response = await fetch(url, init);
  return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()), headers: response.headers };
}

/** A signed download URL issued by `issuer`, fetched from `server`. */
async function download(issuer: ClusterNode, server: ClusterNode, packageId: string, filter?: 'zip' | 'index'): Promise<Uint8Array> {
  const { url } = await okJson<{ url: string }>(
    issuer.fetch(`/api/projects/${project.id}/packages/${packageId}/download${filter ? `?filter=${filter}` : ''}`, { token: owner.token }),
    `download URL from ${issuer.name}`,
  );
  expect(url.startsWith('http://cartridge.test/api/files/')).toBe(true);
  const fetched = await bytesOf(server.at(url));
  expect(fetched.status).toBe(200);
  return fetched.bytes;
}

/** The files of a ZIP, read back with Info-ZIP's unzip (which also tests every entry's CRC). */
function unzipAll(zip: Uint8Array): Map<string, Uint8Array> {
  const folder = mkdtempSync(join(tmpdir(), 'cartridge-scale-zip-'));
  try {
    const path = join(folder, 'package.zip');
    writeFileSync(path, zip);
    const check = Bun.spawnSync(['unzip', '-tq', path]);
    expect(check.exitCode, check.stdout.toString() + check.stderr.toString()).toBe(0);
    const names = Bun.spawnSync(['unzip', '-Z1', path]).stdout.toString().split('\n').filter((name) => name && !name.endsWith('/'));
    return new Map(names.map((name) => [name, new Uint8Array(Bun.spawnSync(['unzip', '-p', path, name]).stdout)]));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const asBytes = (content: Uint8Array | string) => (typeof content === 'string' ? new TextEncoder().encode(content) : content);

describe('one package, two processes', () => {
  let archive: Uint8Array;
  let pkg: Package;

  beforeAll(async () => {
    archive = await packArchiveOf(files, { compression: 1 });
    const uploaded = await uploadAcross({ createOn: b, partsTo: [a, b], finalizeOn: a }, owner, project.id, archive, {
      title: 'Web',
      tags: ['os:web'],
      entrypoint: ['index.html'],
    });
    expect(uploaded.partNodes.length).toBeGreaterThan(4);
    expect(new Set(uploaded.partNodes)).toEqual(new Set(['A', 'B']));
    pkg = await okJson<Package>(uploaded.finalize, 'finalize on A');
  }, 60_000);

  test('parts PUT alternately to A and B, finalized on A: ready, and B describes the same package', async () => {
    expect(pkg.status).toBe('ready');
    const fromA = await okJson<Package>(a.fetch(`/api/projects/${project.id}/packages/${pkg.id}`, { token: owner.token }), 'package on A');
    const fromB = await okJson<Package>(b.fetch(`/api/projects/${project.id}/packages/${pkg.id}`, { token: owner.token }), 'package on B');
    // The finalize reply is the package as listed; GET adds whether its start file is executable.
    expect(fromA).toMatchObject(pkg);
    expect(fromB).toEqual(fromA);
  });

  test('the archive and its index, issued by either process and served by B, are the bytes uploaded', async () => {
    for (const issuer of [a, b]) {
      expect(sha256(await download(issuer, b, pkg.id))).toBe(sha256(archive));
      expect(sha256(await download(issuer, b, pkg.id, 'index'))).toBe(pkg.indexHash!);
    }
    // And the other way round.
    expect(sha256(await download(b, a, pkg.id))).toBe(sha256(archive));
  });

  test('the ZIP is byte for byte the same from A and from B, whoever signed its URL, and holds the files', async () => {
    const zips = [await download(a, b, pkg.id, 'zip'), await download(b, b, pkg.id, 'zip'), await download(b, a, pkg.id, 'zip'), await download(a, a, pkg.id, 'zip')];
    for (const zip of zips.slice(1)) expect(sha256(zip)).toBe(sha256(zips[0]!));
    const unpacked = unzipAll(zips[0]!);
    expect([...unpacked.keys()].sort()).toEqual(Object.keys(files).sort());
    for (const [path, content] of Object.entries(files)) expect(sha256(unpacked.get(path)!)).toBe(sha256(asBytes(content)));
  });

  test('the torrent from A and from B has the same info (same info hash); its pieces hash the ZIP its web seed serves from the other process', async () => {
    type Torrent = { info: { name: Uint8Array; length: number; 'piece length': number; pieces: Uint8Array }; 'url-list': Uint8Array[] };
    const torrentOf = async (node: ClusterNode) => {
      const response = await node.fetch(`/api/projects/${project.id}/packages/${pkg.id}/torrent`, { token: owner.token });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/x-bittorrent');
      return bencode.decode(new Uint8Array(await response.arrayBuffer())) as Torrent;
    };
    const [fromA, fromB] = [await torrentOf(a), await torrentOf(b)];
    expect(sha1(bencode.encode(fromB.info))).toBe(sha1(bencode.encode(fromA.info)));
    const webSeed = new TextDecoder().decode(fromA['url-list'][0]);
    // A's signed web seed, served by B.
    const zip = await bytesOf(b.at(webSeed));
    expect(zip.status).toBe(200);
    expect(zip.bytes.length).toBe(fromA.info.length);
    const pieceLength = fromA.info['piece length'];
    const pieces = fromA.info.pieces;
    expect(pieces.length).toBe(Math.ceil(zip.bytes.length / pieceLength) * 20);
    for (let index = 0; index * pieceLength < zip.bytes.length; index++) {
      const expected = Buffer.from(pieces.subarray(index * 20, index * 20 + 20)).toString('hex');
      expect(sha1(zip.bytes.subarray(index * pieceLength, (index + 1) * pieceLength))).toBe(expected);
    }
  });

  test('browser play: a play URL issued by one process is served by the other process’s play origin, file for file', async () => {
    for (const [issuer, server] of [
      [a, b],
      [b, a],
    ] as const) {
      const { url } = await okJson<{ url: string }>(issuer.fetch(`/api/projects/${project.id}/packages/${pkg.id}/play`, { token: owner.token }), `play URL from ${issuer.name}`);
      expect(url.startsWith('http://play.cartridge.test/p/')).toBe(true);
      expect(url.endsWith('/index.html')).toBe(true);
      const root = url.slice(0, url.length - 'index.html'.length);
      for (const [path, content] of Object.entries(files)) {
        if (path.includes(' ')) continue;
        const served = await bytesOf(server.at(`${root}${path}`));
        expect({ path, status: served.status }).toEqual({ path, status: 200 });
        expect(sha256(served.bytes)).toBe(sha256(asBytes(content)));
      }
      // A range of a file spanning chunks, as media elements ask.
      const range = await bytesOf(server.at(`${root}data/big.bin`), { headers: { range: 'bytes=100000-300000' } });
      expect(range.status).toBe(206);
      expect(sha256(range.bytes)).toBe(sha256(big.subarray(100_000, 300_001)));
    }
  });
});

test('a package uploaded entirely through B and finalized on B downloads from A', async () => {
  const small = { 'readme.txt': 'only B saw this upload\n', 'bin/tool': new Uint8Array(150_000).map((_, i) => (i * 31) & 0xff) };
  const archive = await packArchiveOf(small);
  const uploaded = await uploadAcross({ createOn: b, partsTo: [b], finalizeOn: b }, owner, project.id, archive);
  const pkg = await okJson<Package>(uploaded.finalize, 'finalize on B');
  expect(sha256(await download(b, a, pkg.id))).toBe(sha256(archive));
  const unpacked = unzipAll(await download(a, a, pkg.id, 'zip'));
  expect(sha256(unpacked.get('bin/tool')!)).toBe(sha256(small['bin/tool']));
}, 30_000);

test('the same finalize sent to A and B at once (a client retrying through another process): all answer the ready package, prepared once', async () => {
  const archive = await packArchiveOf({ 'retry.bin': new Uint8Array(200_000).map((_, i) => (i * 13) & 0xff) });
  const created = await okJson<{ id: string; uploadInfo: UploadInfo }>(
    a.fetch(`/api/projects/${project.id}/packages`, { method: 'POST', token: owner.token, json: { size: archive.length, tags: [], entrypoint: null } }),
    'create',
  );
  const parts = splitParts(archive, created.uploadInfo.partSize);
  const descriptors = await Promise.all(parts.map((bytes, part) => okJson(putPart({ ...created.uploadInfo, uploadUrl: (part % 2 ? a : b).at(created.uploadInfo.uploadUrl) }, part, bytes), `part ${part}`)));
  const answers = await Promise.all(
    [a, b, a, b].map((node) => okJson<Package>(node.fetch(`/api/projects/${project.id}/packages/${created.id}/finalize`, { method: 'PUT', token: owner.token, json: { token: created.uploadInfo.token, parts: descriptors } }), `finalize on ${node.name}`)),
  );
  for (const answer of answers) expect(answer).toMatchObject({ id: created.id, status: 'ready', indexHash: answers[0]!.indexHash });
  const prepares = await cluster.db.select().from(jobs).where(and(eq(jobs.kind, 'package_prepare'), eq(jobs.dedupeKey, `package:${created.id}`)));
  expect(prepares).toHaveLength(1);
  expect(sha256(await download(b, a, created.id))).toBe(sha256(archive));
}, 30_000);
