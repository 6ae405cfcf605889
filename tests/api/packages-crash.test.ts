import { afterEach, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addFile, bytesSource, concatBytes, createTree, encodeIndex, packArchive, toHex, type ArchiveIndex } from '../../src/shared/archive/index.ts';
import type { Package, UploadInfo } from '../../src/shared/schemas/packages.ts';
import { eq, sql } from 'drizzle-orm';
import { jobs, storedChunks } from '../../src/server/db/schema/index.ts';
import { findJob } from '../../src/server/jobs/queue.ts';
import { startChildServer, type ChildServer } from '../support/child-server.ts';
import { sha1Hex, splitParts } from '../support/packages.ts';

/**
 * Crash safety of uploads: the real server runs as a child process (PGlite and blobs on disk in its
 * DATA_DIR, or its own PostgreSQL database with DATABASE_URL) and is killed with SIGKILL in the middle
 * of a part upload, a finalize and a resolve job, then restarted on the same data; the upload is then
 * finished and every download (archive, index, ZIP) is checked against what was packed here.
 * Synchronisation is on observable progress (bytes in the blob store's temp file, pack blobs
 * appearing, the package's status), with deadlines; never on fixed sleeps.
 */

const MiB = 1024 * 1024;
const partSize = MiB;
/** Small packs, so a finalize is seen writing them one after another. */
const packSize = MiB;
/** Each test takes ~3-12 s alone; a loaded CI machine (two test files at once on two cores) may triple that. */
const crashTestTimeoutMs = 90_000;

type Packed = { bytes: Uint8Array; index: ArchiveIndex; indexHash: string; chunkCount: number };
type Files = Record<string, Uint8Array>;
type Owner = { token: string; projectId: string };
type Created = { id: string; uploadInfo: UploadInfo };

let server: ChildServer | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function start(env: Record<string, string> = {}): Promise<ChildServer> {
  server = await startChildServer({ env: { UPLOAD_PART_SIZE: String(partSize), PACK_SIZE: String(packSize), JOB_POLL_MS: '50', ...env } });
  return server;
}

async function pack(files: Files, base?: ArchiveIndex): Promise<Packed> {
  const tree = createTree();
  for (const [path, bytes] of Object.entries(files)) addFile(tree, path, bytesSource(bytes));
  const packed = packArchive(tree, { compression: 0, base });
  const bytes = concatBytes(await Array.fromAsync(packed.stream as unknown as AsyncIterable<Uint8Array>));
  const done = await packed.done;
  return { bytes, index: done.index, indexHash: toHex(done.indexHash), chunkCount: done.chunkCount };
}

async function json<T>(response: Response, what: string): Promise<T> {
  if (response.status !== 200) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function setUp(child: ChildServer): Promise<Owner> {
  const name = `crash${Math.random().toString(36).slice(2, 8)}`;
  const session = await json<{ authToken: string }>(
    await child.fetch('/api/auth/password', { method: 'POST', json: { name, password: `pw-${name}-secret`, intent: 'register' } }),
    'register',
  );
  const project = await json<{ id: string }>(await child.fetch('/api/projects', { method: 'POST', token: session.authToken, json: { title: 'Crash test' } }), 'project');
  return { token: session.authToken, projectId: project.id };
}

async function createUpload(child: ChildServer, owner: Owner, archive: Uint8Array, basePackage: string | null = null): Promise<Created> {
  const response = await child.fetch(`/api/projects/${owner.projectId}/packages`, {
    method: 'POST',
    token: owner.token,
    json: { size: archive.length, tags: [], entrypoint: null, basePackage },
  });
  const created = await json<Created>(response, 'create package');
  expect(created.uploadInfo.partSize).toBe(partSize);
  return created;
}

function partUrl(child: ChildServer, created: Created, part: number, hash: string): string {
  const path = new URL(created.uploadInfo.uploadUrl).pathname;
  return `${child.url}${path}?token=${encodeURIComponent(created.uploadInfo.token)}&part=${part}&hash=${hash}`;
}

async function putPart(child: ChildServer, created: Created, part: number, bytes: Uint8Array): Promise<{ part: number; hash: string; size: number }> {
  const response = await fetch(partUrl(child, created, part, sha1Hex(bytes)), { method: 'PUT', body: bytes as unknown as BodyInit });
  return json(response, `part ${part}`);
}

async function putParts(child: ChildServer, created: Created, parts: Uint8Array[], skip?: number) {
  const descriptors = [];
  for (let part = 0; part < parts.length; part++) if (part !== skip) descriptors.push(await putPart(child, created, part, parts[part]!));
  return descriptors;
}

function finalize(child: ChildServer, owner: Owner, created: Created, parts: unknown[]): Promise<Response> {
  return child.fetch(`/api/projects/${owner.projectId}/packages/${created.id}/finalize`, {
    method: 'PUT',
    token: owner.token,
    json: { token: created.uploadInfo.token, parts },
  });
}

async function getPackage(child: ChildServer, owner: Owner, id: string): Promise<Package> {
  return json<Package>(await child.fetch(`/api/projects/${owner.projectId}/packages/${id}`, { token: owner.token }), 'get package');
}

/** Polls until `check` returns a value (not undefined), failing with `what` at the deadline. */
async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000, everyMs = 5): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${server?.readLog() ?? ''}`);
    await Bun.sleep(everyMs);
  }
}

/** A request whose settlement can be looked at synchronously (to assert it had not answered). */
function track(promise: Promise<Response>) {
  const state: { settled: boolean; outcome: Promise<number | 'failed'> } = { settled: false, outcome: undefined as never };
  state.outcome = promise.then(
    (response) => {
      state.settled = true;
      return response.status;
    },
    () => {
      state.settled = true;
      return 'failed' as const;
    },
  );
  return state;
}

function filesIn(folder: string): string[] {
  return existsSync(folder) ? readdirSync(folder) : [];
}

function sha256(bytes: Uint8Array): string {
  return new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
}

async function download(child: ChildServer, owner: Owner, id: string, filter?: 'index' | 'zip'): Promise<Uint8Array> {
  const query = filter ? `?filter=${filter}` : '';
  const { url } = await json<{ url: string }>(await child.fetch(`/api/projects/${owner.projectId}/packages/${id}/download${query}`, { token: owner.token }), `download ${filter ?? 'archive'}`);
  // The signed URL needs no bearer; it names the server's origin (no PUBLIC_URL), so it is fetched as is.
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

/** The package is ready and its archive, index and ZIP downloads are exactly what was packed here. */
async function expectDownloadsVerify(child: ChildServer, owner: Owner, id: string, packed: Packed, files: Files): Promise<void> {
  const pkg = await getPackage(child, owner, id);
  expect(pkg.status).toBe('ready');
  expect(pkg.indexHash).toBe(packed.indexHash);
  expect(pkg.size).toBe(Object.values(files).reduce((sum, bytes) => sum + bytes.length, 0));

  const archive = await download(child, owner, id);
  expect(archive.length).toBe(packed.bytes.length);
  expect(sha256(archive)).toBe(sha256(packed.bytes));
  const index = await download(child, owner, id, 'index');
  expect(sha256(index)).toBe(sha256(new Uint8Array(Buffer.concat(encodeIndex(packed.index)))));

  const zip = await download(child, owner, id, 'zip');
  const folder = mkdtempSync(join(tmpdir(), 'cartridge-crash-zip-'));
  try {
    const zipPath = join(folder, 'package.zip');
    await Bun.write(zipPath, zip);
    const tested = Bun.spawnSync(['unzip', '-t', zipPath]);
    expect(tested.stdout.toString()).toContain('No errors detected');
    expect(tested.exitCode).toBe(0);
    const out = join(folder, 'out');
    expect(Bun.spawnSync(['unzip', '-q', zipPath, '-d', out]).exitCode).toBe(0);
    for (const [path, bytes] of Object.entries(files)) {
      expect(statSync(join(out, path)).size).toBe(bytes.length);
      expect(sha256(new Uint8Array(readFileSync(join(out, path))))).toBe(sha256(bytes));
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

describe('crash safety of package uploads (the server process is killed with SIGKILL and restarted)', () => {
  test('killed during a part upload: the half part leaves nothing behind, re-sending it works, the package completes', async () => {
    const child = await start();
    const owner = await setUp(child);
    const files: Files = { 'game.bin': new Uint8Array(randomBytes(3 * MiB + 12345)), 'readme.txt': new TextEncoder().encode('Crash safe.\n') };
    const packed = await pack(files);
    const parts = splitParts(packed.bytes, partSize);
    expect(parts.length).toBe(4);
    const created = await createUpload(child, owner, packed.bytes);
    const descriptors = await putParts(child, created, parts, 1);

    // Part 1: half of its bytes, then the body stalls; the server has them in a temp file when it dies.
    const half = parts[1]!.subarray(0, partSize / 2);
    let release!: () => void;
    const stalled = new Promise<void>((resolve) => (release = resolve));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(half.slice());
        await stalled;
        controller.close();
      },
    });
    const tempFolder = join(child.dataDir, 'blobs', '.tmp');
    expect(filesIn(tempFolder)).toEqual([]);
    const request = track(fetch(partUrl(child, created, 1, sha1Hex(parts[1]!)), { method: 'PUT', body, duplex: 'half' } as RequestInit));
    await waitFor('the half part to reach the blob store', () => {
      const sizes = filesIn(tempFolder).map((name) => statSync(join(tempFolder, name)).size);
      return sizes.length === 1 && sizes[0] === half.length ? true : undefined;
    });
    expect(request.settled).toBe(false);
    await child.kill();
    release();
    expect(await request.outcome).toBe('failed');
    // Nothing under the part's key: the bytes stayed in a temp file (swept by age, never read as a part).
    expect(existsSync(join(child.dataDir, 'blobs', 'uploads', created.id, '1'))).toBe(false);
    expect(existsSync(join(child.dataDir, 'blobs', 'uploads', created.id, '0'))).toBe(true);

    await child.restart();
    expect((await getPackage(child, owner, created.id)).status).toBe('uploading');
    // The part was never acknowledged: a finalize naming it is refused, and changes nothing.
    const full = { part: 1, hash: sha1Hex(parts[1]!), size: parts[1]!.length };
    const refused = await finalize(child, owner, created, [descriptors[0], full, ...descriptors.slice(1)]);
    expect(refused.status).toBe(400);
    const error = (await refused.json()) as { code: string; message: string };
    expect(error.code).toBe('bad_param');
    expect(error.message).toContain('part 1 was not uploaded');

    expect(await putPart(child, created, 1, parts[1]!)).toEqual(full);
    const done = await json<Package>(await finalize(child, owner, created, [descriptors[0], full, ...descriptors.slice(1)]), 'finalize');
    expect(done.status).toBe('ready');
    await expectDownloadsVerify(child, owner, created.id, packed, files);
  }, crashTestTimeoutMs);

  test('killed during finalize: the package stays uploading, finalizing again with the same parts makes it ready', async () => {
    const child = await start();
    const owner = await setUp(child);
    // Incompressible: ~700 chunks of ~48 KiB in 1 MiB packs, each written and synced on its own.
    const files: Files = { 'data/level.pak': new Uint8Array(randomBytes(32 * MiB)), 'run.txt': new TextEncoder().encode('run me\n') };
    const packed = await pack(files);
    const created = await createUpload(child, owner, packed.bytes);
    const descriptors = await putParts(child, created, splitParts(packed.bytes, partSize));

    const packFolder = join(child.dataDir, 'blobs', 'packs');
    const request = track(finalize(child, owner, created, descriptors));
    // Mid-way: it has written some packs, far from all of them. With 8 complete, at least the first 4 are
    // recorded (the writer finishes at most 4 at once: pack-writer.ts).
    await waitFor('finalize to write packs', () => (request.settled || filesIn(packFolder).length >= 8 ? true : undefined));
    expect(request.settled).toBe(false);
    await child.kill();
    expect(await request.outcome).toBe('failed');
    const packsBeforeCrash = filesIn(packFolder);
    expect(packsBeforeCrash.length).toBeGreaterThanOrEqual(8);
    expect(packsBeforeCrash.length).toBeLessThan(packed.bytes.length / packSize);

    await child.restart();
    const after = await getPackage(child, owner, created.id);
    expect(after.status).toBe('uploading');
    expect(after.indexHash).toBeNull();
    const done = await json<Package>(await finalize(child, owner, created, descriptors), 'finalize again');
    expect(done.status).toBe('ready');
    // Nothing written before the crash was removed (packs never recorded are the storage sweep's, an hour later).
    const packsAfter = filesIn(packFolder);
    for (const id of packsBeforeCrash) expect(packsAfter).toContain(id);
    // The parts are gone once the package is ready.
    expect(filesIn(join(child.dataDir, 'blobs', 'uploads', created.id))).toEqual([]);
    await expectDownloadsVerify(child, owner, created.id, packed, files);
    // The repeat found the chunks of the packs recorded before the crash and did not write them again.
    await child.kill();
    const located = await child.withDatabase(async (db) => new Set((await db.select({ packId: storedChunks.packId }).from(storedChunks)).map((row) => row.packId)));
    expect(packsBeforeCrash.filter((id) => located.has(id)).length).toBeGreaterThanOrEqual(4);
  }, crashTestTimeoutMs);

  test('killed during the resolve job: after its lease ends the restarted worker takes it again and the patch becomes ready', async () => {
    // A lease far longer than any stall of a busy machine: the test ends the dead server's lease itself.
    const child = await start({ JOB_LEASE_MS: '120000' });
    const owner = await setUp(child);
    // A big base: the job looks up its ~4300 chunks twice, combines their CRC-32s into the files' (one per
    // small file) and records them all (small files are a chunk each: enough work that the job is still
    // running when it is seen started, on a fast machine too).
    const baseFiles: Files = { 'data/level.pak': new Uint8Array(randomBytes(8 * MiB)), 'version.txt': new TextEncoder().encode('1\n') };
    for (let i = 0; i < 3000; i++) baseFiles[`assets/a${i}.bin`] = new Uint8Array(randomBytes(4096));
    const base = await pack(baseFiles);
    const baseUpload = await createUpload(child, owner, base.bytes);
    expect((await json<Package>(await finalize(child, owner, baseUpload, await putParts(child, baseUpload, splitParts(base.bytes, partSize))), 'finalize base')).status).toBe('ready');

    const patchFiles: Files = { ...baseFiles, 'version.txt': new TextEncoder().encode('2\n'), 'notes.txt': new TextEncoder().encode('New level.\n') };
    const patch = await pack(patchFiles, base.index);
    expect(patch.bytes.length).toBeLessThan(MiB);
    const patchUpload = await createUpload(child, owner, patch.bytes, baseUpload.id);
    const finalized = await json<Package>(await finalize(child, owner, patchUpload, await putParts(child, patchUpload, splitParts(patch.bytes, partSize))), 'finalize patch');
    expect(finalized.status).toBe('finalized');

    const { job } = await json<{ job: string }>(await child.fetch(`/api/projects/${owner.projectId}/packages/${patchUpload.id}/resolve`, { method: 'POST', token: owner.token }), 'resolve');
    const seen = await waitFor('the resolve job to start', async () => {
      const status = (await getPackage(child, owner, patchUpload.id)).status;
      return status === 'finalized' ? undefined : status;
    });
    await child.kill();
    expect(seen).toBe('resolving');

    // What the lease's end would do after JOB_LEASE_MS, now: the dead worker's claim is over.
    await child.withDatabase((db) => db.update(jobs).set({ lockedUntil: sql`now() - interval '1 second'` }).where(eq(jobs.id, job)));
    await child.restart();
    const ready = await waitFor('the patch to become ready after the restart', async () => {
      const pkg = await getPackage(child, owner, patchUpload.id);
      expect(pkg.status).not.toBe('errored');
      return pkg.status === 'ready' ? pkg : undefined;
    }, 30_000, 50);
    expect(ready.basePackage).toBe(baseUpload.id);
    // The full archive of the patched tree (not the patch): what a non-patch upload of it would be.
    const full = await pack(patchFiles);
    await expectDownloadsVerify(child, owner, patchUpload.id, full, patchFiles);

    // The job ran twice: claimed by the killed process, then taken over once its lease ended.
    await child.kill();
    const record = await child.withDatabase((db) => findJob(db, job));
    expect(record?.status).toBe('succeeded');
    expect(record?.attempts).toBe(2);
    expect(record?.output).toEqual({ package: patchUpload.id });
  }, crashTestTimeoutMs);
});
