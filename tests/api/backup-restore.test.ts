import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { addFile, addSymlink, bytesSource, concatBytes, createTree, MODE_EXECUTABLE, packArchive, type CompressionAlgorithm } from '../../src/shared/archive/index.ts';
import type { BackupManifest } from '../../src/server/commands/backup-format.ts';
import { openDatabase } from '../../src/server/db/client.ts';
import { withImageBlobDeleteLock } from '../../src/server/domains/content-images/blob-delete-lock.ts';
import { chunkStoreLock } from '../../src/server/storage/chunk-store-lock.ts';
import { createBlobStore } from '../../src/server/storage/index.ts';
import { createInstance, type CommandResult, type Instance } from '../support/backup-instance.ts';
import { photoLike } from '../support/images.ts';
import { sha1Hex, splitParts } from '../support/packages.ts';
import { startS3Server, type TestS3Server } from '../support/s3-server.ts';
import { writeExecutable } from '../support/executable-file.ts';

/**
 * `cartridge admin backup DIR` and `restore DIR` (src/server/commands/backup.ts, restore.ts) on a real
 * instance (the server as a child process, tests/support/backup-instance.ts): PGlite by default, its own
 * PostgreSQL database with DATABASE_URL. An instance is populated through the API (accounts, an API
 * token, a public project, three packages of a few MiB with an executable and a symlink, one of them
 * zstd, a version published to a public branch, a picture in the description), backed up (PGlite: the
 * server stopped; PostgreSQL: while it runs, an upload finishing during the backup), wiped, restored
 * and started again: every package's ZIP and archive download byte for byte as before, the password
 * and the API token sign in, the store page answers. Also: refusals (a running PGlite, a non-empty
 * folder or target, a tampered blob, a backup without its manifest, a missing or old pg_dump), the
 * password kept off pg_dump's and pg_restore's command lines, the picture deleters standing back while a
 * backup holds the chunk-store lock, --force, and an S3 store (with a prefix) restored into a fresh bucket.
 */

const MiB = 1024 * 1024;
const onPostgres = Boolean(process.env.DATABASE_URL);
const slow = 240_000;

type Spec = { title: string; tags: string[]; entrypoint: string[]; files: Record<string, { bytes: Uint8Array; executable?: boolean }>; symlinks?: Record<string, string>; compression?: CompressionAlgorithm };
type Created = { id: string; uploadInfo: { token: string; uploadUrl: string; partSize: number } };
type Owner = { name: string; password: string; token: string; apiToken: string; projectId: string };
type Recorded = { title: string; zip: string; archive: string };

async function json<T>(response: Response, what: string): Promise<T> {
  if (response.status !== 200) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

function sha256(bytes: Uint8Array): string {
  return new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
}

async function pack(spec: Spec): Promise<Uint8Array> {
  const tree = createTree();
  for (const [path, file] of Object.entries(spec.files)) addFile(tree, path, bytesSource(file.bytes), { mode: file.executable ? MODE_EXECUTABLE : 0 });
  for (const [path, target] of Object.entries(spec.symlinks ?? {})) addSymlink(tree, path, target);
  const packed = packArchive(tree, { compression: spec.compression ?? 0 });
  const bytes = concatBytes(await Array.fromAsync(packed.stream as unknown as AsyncIterable<Uint8Array>));
  await packed.done;
  return bytes;
}

/** The instance's own address for a URL the server made (PUBLIC_URL may name another host). */
function onInstance(instance: Instance, url: string): string {
  const parsed = new URL(url, instance.url);
  return `${instance.url}${parsed.pathname}${parsed.search}`;
}

async function register(instance: Instance, name: string, password: string): Promise<string> {
  return (await json<{ authToken: string }>(await instance.fetch('/api/auth/password', { method: 'POST', json: { name, password, intent: 'register' } }), 'register')).authToken;
}

async function createUpload(instance: Instance, owner: Owner, archive: Uint8Array, spec: Spec): Promise<Created> {
  return json<Created>(
    await instance.fetch(`/api/projects/${owner.projectId}/packages`, { method: 'POST', token: owner.token, json: { size: archive.length, title: spec.title, tags: spec.tags, entrypoint: spec.entrypoint, basePackage: null } }),
    'create package',
  );
}

async function sendParts(instance: Instance, created: Created, archive: Uint8Array): Promise<unknown[]> {
  const descriptors: unknown[] = [];
  for (const [part, bytes] of splitParts(archive, created.uploadInfo.partSize).entries()) {
    const url = `${onInstance(instance, created.uploadInfo.uploadUrl)}?token=${encodeURIComponent(created.uploadInfo.token)}&part=${part}&hash=${sha1Hex(bytes)}`;
    descriptors.push(await json(await fetch(url, { method: 'PUT', body: bytes as unknown as BodyInit }), `part ${part}`));
  }
  return descriptors;
}

function finalize(instance: Instance, owner: Owner, created: Created, parts: unknown[]): Promise<Response> {
  return instance.fetch(`/api/projects/${owner.projectId}/packages/${created.id}/finalize`, { method: 'PUT', token: owner.token, json: { token: created.uploadInfo.token, parts } });
}

async function upload(instance: Instance, owner: Owner, spec: Spec): Promise<string> {
  const archive = await pack(spec);
  const created = await createUpload(instance, owner, archive, spec);
  await json(await finalize(instance, owner, created, await sendParts(instance, created, archive)), `finalize ${spec.title}`);
  return created.id;
}

async function download(instance: Instance, owner: Pick<Owner, 'token' | 'projectId'>, packageId: string, filter: 'zip' | 'archive'): Promise<Uint8Array> {
  const query = filter === 'zip' ? '?filter=zip' : '';
  const { url } = await json<{ url: string }>(await instance.fetch(`/api/projects/${owner.projectId}/packages/${packageId}/download${query}`, { token: owner.token }), `download url ${filter}`);
  const response = await fetch(onInstance(instance, url));
  if (response.status !== 200) throw new Error(`download ${filter}: ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function record(instance: Instance, owner: Owner, packages: Map<string, string>): Promise<Map<string, Recorded>> {
  const recorded = new Map<string, Recorded>();
  for (const [id, title] of packages) {
    recorded.set(id, { title, zip: sha256(await download(instance, owner, id, 'zip')), archive: sha256(await download(instance, owner, id, 'archive')) });
  }
  return recorded;
}

function readManifest(dir: string): BackupManifest {
  return JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as BackupManifest;
}

function blobKeysOf(dir: string): string[] {
  return readFileSync(join(dir, 'blobs.sha256'), 'utf8').trimEnd().split('\n').map((line) => line.slice(66));
}

/** Polls until `check` holds, failing with `what` at the deadline. */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

/**
 * A stand-in for pg_dump / pg_restore (PG_DUMP, PG_RESTORE) that records its command line and whether
 * PGPASSWORD reached it, then runs the real program. pg_dump's waits for a `go` file after saying it
 * started, so the test can act while the backup holds its lock.
 */
function recordingTool(folder: string, name: 'pg_dump' | 'pg_restore', wait: boolean): string {
  const path = join(folder, `${name}-recorder`);
  writeExecutable(
    path,
    `#!/bin/sh
if [ "$1" = "--version" ]; then exec ${name} --version; fi
printf '%s\\n' "$@" > "${folder}/${name}.argv"
printf '%s' "\${PGPASSWORD-}" > "${folder}/${name}.pgpassword"
cat /proc/$$/cmdline > "${folder}/${name}.cmdline" 2>/dev/null
${wait ? `: > "${folder}/${name}.waiting"
i=0
while [ ! -e "${folder}/go" ]; do sleep 0.05; i=$((i+1)); if [ $i -gt 2400 ]; then exit 9; fi; done` : ''}
exec ${name} "$@"
`,
  );
  return path;
}

/** DATABASE_URL with a password in it (trust authentication on the test server ignores it). */
function withPassword(databaseUrl: string, password: string): string {
  const url = new URL(databaseUrl);
  url.password = password;
  return url.toString();
}

function expectNoPassword(result: CommandResult, password: string): void {
  expect(result.stdout).not.toContain(password);
  expect(result.stderr).not.toContain(password);
}

describe('backup and restore of a populated instance', () => {
  let instance: Instance;
  let owner: Owner;
  let packages: Map<string, string>;
  let before: Map<string, Recorded>;
  let image: { path: string; sha256: string };
  let work: string;
  let backupDir: string;
  const password = `pw-${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'cartridge-backup-test-'));
    backupDir = join(work, 'backup');
    // No SECRET_KEY: the server generates DATA_DIR/secret.key, which the backup must carry.
    instance = await createInstance({ env: { UPLOAD_PART_SIZE: String(MiB) } });
    await instance.start();
    const name = 'founder';
    const founderPassword = 'founder-password-for-backups';
    const token = await register(instance, name, founderPassword);
    const apiToken = (await json<{ token: string }>(await instance.fetch('/api/users/me/sessions', { method: 'POST', token, json: { title: 'backups' } }), 'api token')).token;
    const project = await json<{ id: string }>(await instance.fetch('/api/projects', { method: 'POST', token, json: { title: 'Backed Up' } }), 'project');
    owner = { name, password: founderPassword, token, apiToken, projectId: project.id };
    const base = `/api/projects/${project.id}`;
    await json(await instance.fetch(base, { method: 'PATCH', token, json: { isPublic: true } }), 'public project');

    const shared = randomBytes(MiB + 12_345);
    const specs: Spec[] = [
      {
        title: 'Linux build',
        tags: ['os:linux', 'arch:x86', 'bits:64'],
        entrypoint: ['bin', 'game'],
        files: { 'bin/game': { bytes: randomBytes(2 * MiB + 777), executable: true }, 'data/assets.pak': { bytes: shared }, 'README.txt': { bytes: new TextEncoder().encode('Run ./game\n') } },
        symlinks: { game: 'bin/game' },
      },
      {
        title: 'Windows build',
        tags: ['os:windows', 'arch:x86', 'bits:64'],
        entrypoint: ['Game.exe'],
        files: { 'Game.exe': { bytes: randomBytes(2 * MiB + 99), executable: true }, 'data/assets.pak': { bytes: shared } },
      },
      {
        title: 'Web build',
        tags: ['os:web'],
        entrypoint: ['index.html'],
        compression: 1,
        files: {
          'index.html': { bytes: new TextEncoder().encode('<!doctype html><title>Game</title><script src="game.js"></script>') },
          'game.js': { bytes: new TextEncoder().encode('console.log("level");\n'.repeat(60_000)) },
          'game.wasm': { bytes: randomBytes(MiB) },
        },
        symlinks: { 'latest.js': 'game.js' },
      },
    ];
    packages = new Map();
    for (const spec of specs) packages.set(await upload(instance, owner, spec), spec.title);

    const picture = await photoLike(320, 200, { format: 'jpeg', seed: 7 });
    const createdImage = await json<Created>(await instance.fetch(`${base}/content/images`, { method: 'POST', token, json: { size: picture.length, width: 320, height: 200, scale: 100 } }), 'content image');
    await sendParts(instance, createdImage, picture);
    const finalized = await json<{ id: string; url: string; width: number; height: number; scale: number }>(
      await instance.fetch(`${base}/content/images/${createdImage.id}/finalize`, { method: 'PUT', json: { token: createdImage.uploadInfo.token, parts: [{ part: 0, hash: sha1Hex(picture), size: picture.length }] } }),
      'finalize content image',
    );
    await json(
      await instance.fetch(`${base}/description`, {
        method: 'PUT',
        token,
        json: { markdown: `A game.\n\n![Screenshot](${finalized.url})`, lang: 'en', images: [{ id: finalized.id, width: finalized.width, height: finalized.height, scale: finalized.scale, url: finalized.url }] },
      }),
      'description',
    );
    const served = await fetch(onInstance(instance, finalized.url));
    expect(served.status).toBe(200);
    image = { path: new URL(finalized.url).pathname, sha256: sha256(new Uint8Array(await served.arrayBuffer())) };

    const branch = await json<{ id: string }>(await instance.fetch(`${base}/branches`, { method: 'POST', token, json: { title: 'main' } }), 'branch');
    await json(await instance.fetch(`${base}/branches/${branch.id}`, { method: 'PATCH', token, json: { isPublic: true } }), 'public branch');
    const version = await json<{ id: string }>(await instance.fetch(`${base}/versions`, { method: 'POST', token, json: { title: '1.0', description: 'First release.', packages: [...packages.keys()] } }), 'version');
    await json(await instance.fetch(`${base}/branches/${branch.id}/versions/${version.id}`, { method: 'POST', token }), 'publish');
  }, slow);

  afterAll(async () => {
    await instance?.destroy();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test.skipIf(onPostgres)('PGlite: a backup while the server runs is refused; stopped, it is backed up', async () => {
    const refused = await instance.admin(['backup', backupDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toStartWith(`cartridge: the data folder ${instance.dataDir} is in use by process `);
    expect(refused.stderr).toContain('stop that one first');
    expect(existsSync(backupDir)).toBe(false);

    before = await record(instance, owner, packages);
    await instance.stop();
    const result = await instance.admin(['backup', backupDir]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Database (embedded, PostgreSQL');
    expect(result.stdout).toMatch(/Backup complete in [\d.]+ s: .*manifest\.json\n$/);
  }, slow);

  test.skipIf(!onPostgres)('PostgreSQL: backed up while the server runs; an upload finishes during it; the password stays off every command line', async () => {
    const later: Spec = { title: 'Mac build', tags: ['os:macos'], entrypoint: ['Game.app'], files: { 'Game.app': { bytes: randomBytes(MiB + 5), executable: true } } };
    const archive = await pack(later);
    const created = await createUpload(instance, owner, archive, later);
    const parts = await sendParts(instance, created, archive);

    const tools = join(work, 'tools');
    mkdirSync(tools);
    const backup = instance.spawnAdmin(['backup', backupDir], { DATABASE_URL: withPassword(instance.databaseUrl!, password), PG_DUMP: recordingTool(tools, 'pg_dump', true) });
    await until('pg_dump to start', () => existsSync(join(tools, 'pg_dump.waiting')));

    const sql = postgres(instance.databaseUrl!, { max: 1, onnotice: () => {} });
    try {
      // The backup holds the chunk-store lock shared, on a session of its own, from before the dump.
      const locks = await sql<{ mode: string; granted: boolean }[]>`
        select l.mode, l.granted from pg_locks l join pg_stat_activity a on a.pid = l.pid
        where l.locktype = 'advisory' and l.objid::bigint = ${chunkStoreLock} and a.application_name = 'cartridge-backup'`;
      expect([...locks]).toEqual([{ mode: 'ShareLock', granted: true }]);
      // Collectors (exclusive) cannot have it; an upload's finalize (shared) goes through.
      const exclusive = await sql.begin(async (tx) => (await tx<{ locked: boolean }[]>`select pg_try_advisory_xact_lock(${chunkStoreLock}) as locked`)[0]!.locked);
      expect(exclusive).toBe(false);
      await json(await finalize(instance, owner, created, parts), 'finalize during the backup');
      packages.set(created.id, later.title);
      before = await record(instance, owner, packages);
      writeFileSync(join(tools, 'go'), '');
      const result = await backup.done;
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Database (PostgreSQL');
      expectNoPassword(result, password);
      const released = await sql.begin(async (tx) => (await tx<{ locked: boolean }[]>`select pg_try_advisory_xact_lock(${chunkStoreLock}) as locked`)[0]!.locked);
      expect(released).toBe(true);
    } finally {
      writeFileSync(join(tools, 'go'), '');
      await sql.end();
    }
    // The connection reached pg_dump in its environment only.
    const argv = readFileSync(join(tools, 'pg_dump.argv'), 'utf8');
    expect(argv).not.toContain(password);
    expect(readFileSync(join(tools, 'pg_dump.cmdline'), 'utf8')).not.toContain(password);
    expect(argv.split('\n')).toContain('--format=custom');
    expect(readFileSync(join(tools, 'pg_dump.pgpassword'), 'utf8')).toBe(password);
  }, slow);

  test('the backup folder: manifest written last, every blob with its checksum, the generated secret key (0600)', () => {
    const manifest = readManifest(backupDir);
    expect(manifest).toMatchObject({ format: 'cartridge-backup', version: 1, database: { kind: onPostgres ? 'postgres' : 'pglite' }, blobs: { store: 'file', vanished: 0, skipped: 0, skippedKeys: [] }, secretKey: { source: 'file' } });
    expect(manifest.migrations.count).toBeGreaterThanOrEqual(12);
    expect(manifest.database.file).toBe(onPostgres ? 'database.pgdump' : 'database.tar.gz');
    const keys = blobKeysOf(backupDir);
    expect(keys).toHaveLength(manifest.blobs.count);
    let bytes = 0;
    for (const key of keys) bytes += statSync(join(backupDir, 'blobs', key)).size;
    expect(bytes).toBe(manifest.blobs.bytes);
    // Chunks of three packages, their indexes, the picture's sizes: a few MiB at least.
    expect(manifest.blobs.bytes).toBeGreaterThan(5 * MiB);
    expect(keys.some((key) => key.startsWith('content-images/'))).toBe(true);
    expect(readdirSync(backupDir).sort()).toEqual(['blobs', 'blobs.sha256', manifest.database.file, 'manifest.json', 'secret.key'].sort());
    expect(statSync(join(backupDir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(backupDir, 'secret.key'), 'utf8')).toBe(readFileSync(join(instance.dataDir, 'secret.key'), 'utf8'));
  });

  test('refusals: a folder that is not empty; a target that is not empty (without --force)', async () => {
    const again = await instance.admin(['backup', backupDir]);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toBe(`cartridge: ${backupDir} is not empty: back up into a new folder or an empty one.\n`);

    const occupied = await instance.admin(['restore', backupDir]);
    expect(occupied.code).toBe(1);
    expect(occupied.stderr).toStartWith('cartridge: The target is not empty: ');
    expect(occupied.stderr).toContain(onPostgres ? 'the database postgres://' : `the embedded database in ${join(instance.dataDir, 'db')}`);
    expect(occupied.stderr).toContain(`the file store ${join(instance.dataDir, 'blobs')}`);
    expect(occupied.stderr).toContain('pass --force');

    const usage = await instance.admin(['restore', backupDir, '--forse']);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toContain('cartridge admin restore DIR [--force]');
  }, slow);

  test.skipIf(!onPostgres)('PostgreSQL: a pg_dump missing, or older than the server, is refused in one sentence', async () => {
    const dir = join(work, 'refused');
    const missing = await instance.admin(['backup', dir], { PATH: join(work, 'no-programs-here') });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      "cartridge: pg_dump was not found on PATH: install PostgreSQL's client programs of the server's version (Debian: apt-get install postgresql-client) or set PG_DUMP to pg_dump's path.\n",
    );
    const old = join(work, 'old-pg_dump');
    writeExecutable(old, '#!/bin/sh\necho "pg_dump (PostgreSQL) 9.6.24"\n');
    const older = await instance.admin(['backup', dir], { PG_DUMP: old });
    expect(older.code).toBe(1);
    expect(older.stderr).toStartWith(`cartridge: ${old} is version 9, older than the PostgreSQL `);
    expect(existsSync(dir)).toBe(false);
  }, slow);

  test.skipIf(!onPostgres)('PostgreSQL: deleters of picture blobs leave their deletions for later while a backup holds the lock', async () => {
    const backupSession = postgres(instance.databaseUrl!, { max: 1, onnotice: () => {} });
    const handle = await openDatabase({ url: instance.databaseUrl! });
    try {
      await backupSession`select pg_advisory_lock_shared(${chunkStoreLock})`;
      let ran = false;
      const started = Date.now();
      expect(await withImageBlobDeleteLock(handle, async () => (ran = true), 300)).toBeUndefined();
      expect(ran).toBe(false);
      expect(Date.now() - started).toBeLessThan(5000);
      await backupSession`select pg_advisory_unlock_shared(${chunkStoreLock})`;
      expect(await withImageBlobDeleteLock(handle, async () => (ran = true), 300)).toBe(true);
    } finally {
      await handle.close();
      await backupSession.end();
    }
  });

  test('wiped, restored and started again: every package downloads byte for byte, sign-in, the API token and the store page work', async () => {
    const secretKey = readFileSync(join(instance.dataDir, 'secret.key'), 'utf8');
    await instance.wipe();
    expect(readdirSync(instance.dataDir)).toEqual([]);

    const tools = join(work, 'restore-tools');
    mkdirSync(tools);
    const extra = onPostgres ? { DATABASE_URL: withPassword(instance.databaseUrl!, password), PG_RESTORE: recordingTool(tools, 'pg_restore', false) } : undefined;
    const restored = await instance.admin(['restore', backupDir], extra);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain('each matching its SHA-256');
    expect(restored.stdout).toContain(`Secret key: restored to ${join(instance.dataDir, 'secret.key')}`);
    expect(restored.stdout).toMatch(/Restore complete in [\d.]+ s/);
    expect(readFileSync(join(instance.dataDir, 'secret.key'), 'utf8')).toBe(secretKey);
    expect(statSync(join(instance.dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    if (onPostgres) {
      expectNoPassword(restored, password);
      expect(readFileSync(join(tools, 'pg_restore.argv'), 'utf8')).not.toContain(password);
      expect(readFileSync(join(tools, 'pg_restore.cmdline'), 'utf8')).not.toContain(password);
      expect(readFileSync(join(tools, 'pg_restore.pgpassword'), 'utf8')).toBe(password);
    }

    await instance.start();
    expect(await record(instance, owner, packages)).toEqual(before);
    const picture = await fetch(`${instance.url}${image.path}`);
    expect(picture.status).toBe(200);
    expect(sha256(new Uint8Array(await picture.arrayBuffer()))).toBe(image.sha256);

    const signIn = await instance.fetch('/api/auth/password', { method: 'POST', json: { name: owner.name, password: owner.password, intent: 'login' } });
    expect(signIn.status).toBe(200);
    const me = await json<{ name: string }>(await instance.fetch('/api/users/me', { token: owner.apiToken }), 'me with the API token');
    expect(me.name).toBe(owner.name);
    const store = await json<{ title: string }>(await instance.fetch(`/api/store/projects/${owner.projectId}`), 'store project');
    expect(store.title).toBe('Backed Up');
    const page = await instance.fetch(`/store/${owner.projectId}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    // This page's documentation is served in the app.
    expect((await json<{ markdown: string }>(await instance.fetch('/api/documentation/en/backup'), 'docs')).markdown).toStartWith('# Backing up and restoring');
  }, slow);

  test('--force replaces an instance that is there', async () => {
    await instance.stop();
    const forced = await instance.admin(['restore', backupDir, '--force']);
    expect(forced.stderr).toBe('');
    expect(forced.code).toBe(0);
    await instance.start();
    const [id, recorded] = [...before][0]!;
    expect(sha256(await download(instance, owner, id, 'zip'))).toBe(recorded.zip);
  }, slow);

  test('a tampered blob stops the restore naming it (nothing stored under its key); a backup without its manifest is refused', async () => {
    const tampered = join(work, 'tampered');
    cpSync(backupDir, tampered, { recursive: true });
    // The largest blob (package data, whatever the storage layout names it), one byte changed, same size.
    const key = blobKeysOf(tampered).reduce((largest, name) => (statSync(join(tampered, 'blobs', name)).size > statSync(join(tampered, 'blobs', largest)).size ? name : largest));
    const path = join(tampered, 'blobs', key);
    const bytes = readFileSync(path);
    const middle = Math.floor(bytes.length / 2);
    bytes[middle] = bytes[middle]! ^ 0xff;
    writeFileSync(path, bytes);

    const target = await createInstance({ empty: true, env: { UPLOAD_PART_SIZE: String(MiB) } });
    try {
      const result = await target.admin(['restore', tampered]);
      expect(result.code).toBe(1);
      expect(result.stderr).toStartWith(`cartridge: The blob ${key} in the backup is damaged or altered: its SHA-256 is not the one blobs.sha256 lists. The restore stopped half-way`);
      expect(existsSync(join(target.dataDir, 'blobs', key))).toBe(false);

      rmSync(join(tampered, 'manifest.json'));
      const interrupted = await target.admin(['restore', tampered]);
      expect(interrupted.code).toBe(1);
      expect(interrupted.stderr).toBe(`cartridge: ${tampered} has no manifest.json: it is not a backup, or its backup did not finish (the manifest is written last).\n`);
    } finally {
      await target.destroy();
    }
  }, slow);
});

describe('an S3 store, backed up and restored into a fresh bucket', () => {
  let s3: TestS3Server;
  let source: Instance;
  let target: Instance | undefined;
  let work: string;
  const secretKey = 'backup-test-secret-key-from-the-environment-0123';

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'cartridge-backup-s3-'));
    s3 = await startS3Server({ bucket: 'backup-source' });
  }, slow);
  afterAll(async () => {
    await source?.destroy();
    await target?.destroy();
    await s3?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('every blob of s3://backup-source/site is copied out and into s3://backup-target; the package downloads as before', async () => {
    source = await createInstance({ env: { STORAGE_URL: 's3://backup-source/site', ...s3.env, SECRET_KEY: secretKey, UPLOAD_PART_SIZE: String(MiB) } });
    await source.start();
    const token = await register(source, 'founder', 'founder-password-for-backups');
    const project = await json<{ id: string }>(await source.fetch('/api/projects', { method: 'POST', token, json: { title: 'On S3' } }), 'project');
    const owner: Owner = { name: 'founder', password: 'founder-password-for-backups', token, apiToken: token, projectId: project.id };
    const spec: Spec = { title: 'Linux build', tags: ['os:linux'], entrypoint: ['game'], files: { game: { bytes: randomBytes(MiB + 3), executable: true } }, symlinks: { start: 'game' } };
    const id = await upload(source, owner, spec);
    const zip = sha256(await download(source, owner, id, 'zip'));

    // Something else in the bucket, under the prefix, that is no blob key of Cartridge's: left out, named.
    await s3.seed(['site/notes about the bucket.txt']);
    if (!onPostgres) await source.stop();
    const dir = join(work, 'backup');
    const backup = await source.admin(['backup', dir]);
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.stdout).toContain('Blobs (the S3 store s3://backup-source/site)');
    expect(backup.stdout).toContain('SECRET_KEY comes from the environment and is not in the backup');
    const manifest = readManifest(dir);
    expect(manifest).toMatchObject({ blobs: { store: 's3', skipped: 1, skippedKeys: ['notes about the bucket.txt'] }, secretKey: { source: 'environment' } });
    expect(backup.stdout).toContain('1 key that Cartridge does not write skipped: notes about the bucket.txt');
    expect(existsSync(join(dir, 'secret.key'))).toBe(false);
    await source.stop();

    await s3.createBucket('backup-target');
    target = await createInstance({ empty: true, env: { STORAGE_URL: 's3://backup-target', ...s3.env, SECRET_KEY: secretKey, UPLOAD_PART_SIZE: String(MiB) } });
    const restored = await target.admin(['restore', dir]);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain('Blobs into the S3 store s3://backup-target:');
    expect(restored.stdout).toContain('SECRET_KEY is the key this backup was made with');
    const store = createBlobStore('s3://backup-target', { dataDir: target.dataDir, env: s3.env });
    const keys: string[] = [];
    for await (const item of store.list('')) keys.push(item.key);
    expect(keys.sort()).toEqual(blobKeysOf(dir).sort());

    await target.start();
    expect(sha256(await download(target, owner, id, 'zip'))).toBe(zip);
    const signIn = await target.fetch('/api/auth/password', { method: 'POST', json: { name: 'founder', password: 'founder-password-for-backups', intent: 'login' } });
    expect(signIn.status).toBe(200);
  }, slow);
});
