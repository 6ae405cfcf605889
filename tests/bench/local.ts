/**
 * The companion app's install engine (`bun run bench:local`). Issue 17's benchmark.
 *
 * One build of BENCH_LOCAL_MB (1024) MiB: 200 files of log-uniform sizes, ≈ 80% incompressible
 * (tests/bench/packages/build.ts) plus 1500 small scripts and JSON files (≈ 3%). The real server runs as
 * a child process (production mode, PGlite, file blobs: tests/bench/packages/server.ts); the build is
 * pushed with the CLI (`cartridge push --compression none`), so the engine installs from the signed
 * archive URL the page would hand the helper, served by /api/files with Range (206).
 *
 * 1. install: a full install (transitionWorkdir into an empty workdir, in this process) against the
 *    baseline `curl -o build.zip <the server's signed ZIP URL>` + `unzip -q build.zip -d out` of the same
 *    build from the same server, in the same run: ratio = baseline time / install time (goal ≥ 1.0x).
 *    Both downloads are warm (the server made its archive and ZIP files before); `sync` runs before every
 *    timed run so neither pays for the other's dirty pages. Best of BENCH_LOCAL_REPEAT (3), alternated.
 * 2. update: ~1% of the files get 64 KiB overwritten in place (the same edit as bench:packages), 3 files
 *    get 8 KiB inserted, one 4 MiB file is new and one file goes; the CLI pushes the update, and the
 *    installed workdir is moved to it with the index URL the page passes as index_url (GET
 *    .../download?filter=index), so the index comes as an RFC 9842 dcz delta against the installed one:
 *    bytes fetched / bytes that changed (goal ≤ 1.2x), shown with what any chunk-level updater must
 *    fetch (the index delta plus the chunks the old version lacks), with what the update would have
 *    fetched without index_url (the whole index read from the archive instead of the delta: computed
 *    from the same run), and update time / full install time.
 * Every installed tree is checked file by file (SHA-256) against the build after the timed runs.
 *
 * Settings: BENCH_LOCAL_MB (1024), BENCH_LOCAL_REPEAT (3), BENCH_LOCAL_SEED (1), BENCH_LOCAL_TMPDIR
 * (the system temp folder), BENCH_DATABASE_URL (unset: PGlite). Needs curl, unzip and zip-free disk
 * space of ≈ 9× the build. Exits 1 when a measurement failed, not on a missed goal.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statfsSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { archiveDataStart, computePatchSize, decodeIndex } from '../../src/shared/archive/index.ts';
import { formatSize } from '../../src/shared/format/size.ts';
import { transitionWorkdir } from '../../src/helper/install/engine.ts';
import type { TransitionResult } from '../../src/helper/install/types.ts';
import { createContent, writeGeneratedFile } from './archive/generate.ts';
import { createByteStream, createRng } from './archive/random.ts';
import { generatePackageBuild, UPDATE_EDIT_BYTES } from './packages/build.ts';
import { zipUrl } from './packages/download.ts';
import { api, createAccount, currentPackage, startBenchServer, type BenchAccount, type BenchServer } from './packages/server.ts';
import { cliPush } from './packages/upload.ts';
import { formatRatio, positiveNumber, trackFailures } from './support.ts';

const MiB = 1024 * 1024;
const KiB = 1024;
const sizeMiB = positiveNumber('BENCH_LOCAL_MB', 1024);
const repeat = positiveNumber('BENCH_LOCAL_REPEAT', 3);
const seed = positiveNumber('BENCH_LOCAL_SEED', 1);
const databaseUrl = process.env.BENCH_DATABASE_URL || undefined;
const tmpRoot = process.env.BENCH_LOCAL_TMPDIR || tmpdir();
const goals = { install: 1.0, update: 1.2 };
const SMALL_FILES = 1500;
const INSERTS = 3;
const INSERT_BYTES = 8 * KiB;
const NEW_FILE_BYTES = 4 * MiB;

const { fail, hasFailed } = trackFailures();
const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
const mbps = (bytes: number, ms: number): string => `${Math.round(bytes / 1e6 / (ms / 1000))} MB/s`;

type Build = { root: string; files: string[]; totalBytes: number };

/** The packages bench's 200-file build, plus many small text files (scripts, data). */
function generateBuild(root: string, totalBytes: number): Build {
  const small: { path: string; size: number; kind: 'script' | 'json' }[] = [];
  const rng = createRng(seed ^ 0x10ca1);
  for (let i = 0; i < SMALL_FILES; i++) {
    const kind = i % 3 === 0 ? 'json' : 'script';
    small.push({ path: `${kind === 'json' ? 'data' : 'scripts'}/set${i % 20}/${kind}_${String(i).padStart(4, '0')}.${kind === 'json' ? 'json' : 'lua'}`, size: rng.logBetween(256, 64 * KiB), kind });
  }
  const smallBytes = small.reduce((sum, file) => sum + file.size, 0);
  generatePackageBuild(root, seed, totalBytes - smallBytes);
  for (const file of small) writeGeneratedFile(join(root, file.path), file.size, createContent(seed, file.path, file.kind));
  const files = listFiles(root);
  return { root, files, totalBytes: files.reduce((sum, path) => sum + statSync(join(root, path)).size, 0) };
}

function listFiles(root: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, prefix), { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(root, path));
    else out.push(path);
  }
  return out.sort();
}

/** SHA-256 and mode of every file (to compare an installed tree with the build). */
function digestTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const buffer = Buffer.alloc(8 * MiB);
  for (const path of listFiles(root)) {
    const hash = createHash('sha256');
    const fd = openSync(join(root, path), 'r');
    try {
      for (;;) {
        const count = readSync(fd, buffer, 0, buffer.length, null);
        if (count === 0) break;
        hash.update(buffer.subarray(0, count));
      }
    } finally {
      closeSync(fd);
    }
    out.set(path, `${hash.digest('hex')} ${(statSync(join(root, path)).mode & 0o111) !== 0 ? 'x' : '-'}`);
  }
  return out;
}

function sameTree(expected: Map<string, string>, root: string, label: string): void {
  const actual = digestTree(root);
  const problems: string[] = [];
  for (const [path, digest] of expected) if (actual.get(path) !== digest) problems.push(`${path}: ${actual.get(path) ?? 'missing'}`);
  for (const path of actual.keys()) if (!expected.has(path)) problems.push(`${path}: not in the build`);
  if (problems.length > 0) throw new Error(`${label} differs from the build: ${problems.slice(0, 5).join('; ')}`);
}

/** Flushes dirty pages so no timed run pays for what the previous one wrote. */
function settle(): void {
  spawnSync('sync');
}

async function run(command: string[]): Promise<number> {
  const started = performance.now();
  const child = Bun.spawn(command, { stdin: 'ignore', stdout: 'ignore', stderr: 'pipe' });
  const [code, errors] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  if (code !== 0) throw new Error(`${command.slice(0, 2).join(' ')}: exit ${code} ${errors.slice(0, 300)}`);
  return performance.now() - started;
}

async function signedArchiveUrl(server: BenchServer, account: BenchAccount, packageId: string): Promise<string> {
  const { url } = await api<{ url: string }>(server, 'GET', `/projects/${account.projectId}/packages/${packageId}/download`, account.token);
  return new URL(url, server.url).toString();
}

async function signedIndexUrl(server: BenchServer, account: BenchAccount, packageId: string): Promise<string> {
  const { url } = await api<{ url: string }>(server, 'GET', `/projects/${account.projectId}/packages/${packageId}/download?filter=index`, account.token);
  return new URL(url, server.url).toString();
}

async function fetchIndex(server: BenchServer, account: BenchAccount, packageId: string) {
  const bytes = new Uint8Array(await (await fetch(await signedIndexUrl(server, account, packageId))).arrayBuffer());
  return { bytes, index: decodeIndex(bytes) };
}

type Edit = { changedBytes: number; overwritten: number; inserted: number; edits: number; removed: string; added: string };

/** ~1% of files overwritten in place (64 KiB, or half a small file), a few inserts, one new file, one removed. */
function applyUpdate(build: Build): Edit {
  const rng = createRng(seed ^ 0x0bda7e);
  const candidates = [...build.files];
  const pick = (filter: (path: string) => boolean) => {
    const eligible = candidates.filter(filter);
    const path = eligible[rng.below(eligible.length)]!;
    candidates.splice(candidates.indexOf(path), 1);
    return path;
  };
  const sizeOf = (path: string) => statSync(join(build.root, path)).size;
  let overwritten = 0;
  const edits = Math.max(1, Math.round(build.files.length / 100));
  for (let i = 0; i < edits; i++) {
    const path = pick(() => true);
    const size = sizeOf(path);
    const length = Math.min(UPDATE_EDIT_BYTES, Math.max(1, Math.floor(size / 2)));
    const offset = Math.floor((size - length) / 2);
    const fd = openSync(join(build.root, path), 'r+');
    try {
      writeSync(fd, createByteStream(seed, `update/${path}`)(length), 0, length, offset);
    } finally {
      closeSync(fd);
    }
    overwritten += length;
  }
  let inserted = 0;
  for (let i = 0; i < INSERTS; i++) {
    const path = pick((candidate) => sizeOf(candidate) > MiB);
    const bytes = readFileSync(join(build.root, path));
    const at = rng.below(bytes.length);
    const insert = createByteStream(seed, `insert/${path}`)(INSERT_BYTES);
    writeFileSync(join(build.root, path), Buffer.concat([bytes.subarray(0, at), insert, bytes.subarray(at)]));
    inserted += INSERT_BYTES;
  }
  const removed = pick((candidate) => sizeOf(candidate) > 64 * KiB);
  rmSync(join(build.root, removed));
  const added = 'assets/patches/patch_001.pak';
  writeGeneratedFile(join(build.root, added), NEW_FILE_BYTES, createByteStream(seed, added));
  build.files = listFiles(build.root);
  return { changedBytes: overwritten + inserted + NEW_FILE_BYTES, overwritten, inserted, edits, removed, added };
}

async function main(): Promise<void> {
  const totalBytes = Math.round(sizeMiB * MiB);
  const free = statfsSync(tmpRoot);
  if (free.bavail * free.bsize < 9 * totalBytes) throw new Error(`${tmpRoot} has ${formatSize(free.bavail * free.bsize)} free; the run needs about ${formatSize(9 * totalBytes)}`);
  const root = mkdtempSync(join(tmpRoot, 'cartridge-bench-local-'));
  let server: BenchServer | undefined;
  try {
    const generateStarted = performance.now();
    const build = generateBuild(join(root, 'build'), totalBytes);
    const label = `${formatSize(build.totalBytes)}, ${build.files.length} files`;
    console.log(`bench: build of ${label} generated in ${seconds(performance.now() - generateStarted)}`);
    const expected1 = digestTree(build.root);
    server = await startBenchServer(databaseUrl);
    const account = await createAccount(server);
    await cliPush(server, account, build.root, join(root, 'home'));
    const pkg1 = await currentPackage(server, account);
    const archiveUrl = await signedArchiveUrl(server, account, pkg1.id);
    const zip = await zipUrl(server, account, pkg1.id);
    // Warm both downloads: the server makes its archive and ZIP files on first need.
    await run(['curl', '-sS', '--fail', '-o', '/dev/null', archiveUrl]);
    await run(['curl', '-sS', '--fail', '-o', '/dev/null', zip]);

    // 1. Full install against curl + unzip, alternated.
    const baseline: { curl: number; unzip: number; total: number }[] = [];
    const installs: { ms: number; result: TransitionResult; dir: string; metaDir: string }[] = [];
    for (let round = 0; round < repeat; round++) {
      const zipFile = join(root, 'download.zip');
      const out = join(root, 'unzipped');
      settle();
      const curlMs = await run(['curl', '-sS', '--fail', '-o', zipFile, zip]);
      const unzipMs = await run(['unzip', '-q', zipFile, '-d', out]);
      baseline.push({ curl: curlMs, unzip: unzipMs, total: curlMs + unzipMs });
      if (round === 0) sameTree(expected1, out, 'the unzipped ZIP');
      rmSync(zipFile, { force: true });
      rmSync(out, { recursive: true, force: true });

      const dir = join(root, `install-${round}`, 'game');
      const metaDir = join(root, `install-${round}`, 'meta');
      mkdirSync(join(root, `install-${round}`));
      settle();
      const started = performance.now();
      const result = await transitionWorkdir({ dir, metaDir, packageUrl: archiveUrl });
      installs.push({ ms: performance.now() - started, result, dir, metaDir });
      // Keep the best one installed (for the update); the others go.
      installs.sort((a, b) => a.ms - b.ms);
      for (const other of installs.slice(1)) rmSync(join(other.dir, '..'), { recursive: true, force: true });
      installs.length = 1;
    }
    const best = installs[0]!;
    sameTree(expected1, best.dir, 'the installed workdir');
    const base = baseline.reduce((a, b) => (b.total < a.total ? b : a));
    const installRatio = base.total / best.ms;
    console.log(
      `local/install ${label}: ${formatRatio(installRatio)} curl+unzip (engine ${mbps(best.result.size, best.ms)}: ${seconds(best.ms)}, ` +
        `${best.result.stats.requests} requests, ${formatSize(best.result.stats.bytesFetched)} fetched; baseline ${seconds(base.total)} = curl of the ` +
        `server's ZIP ${seconds(base.curl)} + unzip ${seconds(base.unzip)}; best of ${repeat} each, warm server, sync before each) — ` +
        `${installRatio >= goals.install ? `meets goal ≥ ${goals.install}x` : `MISSES GOAL ≥ ${goals.install}x`}`,
    );

    // 2. The update.
    const edit = applyUpdate(build);
    const expected2 = digestTree(build.root);
    await cliPush(server, account, build.root, join(root, 'home'));
    const pkg2 = await currentPackage(server, account);
    if (pkg2.id === pkg1.id) throw new Error('the update push made no new package');
    const archiveUrl2 = await signedArchiveUrl(server, account, pkg2.id);
    await run(['curl', '-sS', '--fail', '-o', '/dev/null', archiveUrl2]);
    const [index1, index2] = [await fetchIndex(server, account, pkg1.id), await fetchIndex(server, account, pkg2.id)];
    const newChunkBytes = computePatchSize(index2.index, index1.index);
    // What the page passes as index_url: the new package's signed index URL.
    const indexUrl2 = await signedIndexUrl(server, account, pkg2.id);
    settle();
    const started = performance.now();
    const update = await transitionWorkdir({ dir: best.dir, metaDir: best.metaDir, packageUrl: archiveUrl2, indexUrl: indexUrl2 });
    const updateMs = performance.now() - started;
    sameTree(expected2, best.dir, 'the updated workdir');
    const fetched = update.stats.bytesFetched;
    const indexFetch = update.stats.index ?? { via: 'archive', bytes: 0 };
    if (indexFetch.via !== 'dcz') fail(`the update's index came by ${indexFetch.via}, not as a dcz delta`);
    const updateRatio = fetched / edit.changedBytes;
    console.log(
      `local/update ${label}: ${formatRatio(updateRatio)} bytes changed (fetched ${formatSize(fetched)} in ${update.stats.requests} requests for ` +
        `${formatSize(edit.changedBytes)} changed: ${edit.edits} files with ${formatSize(edit.overwritten)} overwritten in place, ${INSERTS} inserts of ` +
        `${formatSize(INSERT_BYTES)}, one new ${formatSize(NEW_FILE_BYTES)} file, one removed; index by ${indexFetch.via}: ${formatSize(indexFetch.bytes)} ` +
        `for a ${formatSize(index2.bytes.length)} index) — ${updateRatio <= goals.update ? `meets goal ≤ ${goals.update}x` : `MISSES GOAL ≤ ${goals.update}x`}`,
    );
    // Without index_url the engine reads header, index and index hash from the archive instead.
    const archiveIndexBytes = archiveDataStart(index2.bytes.length);
    const withoutIndexUrl = fetched - indexFetch.bytes + archiveIndexBytes;
    console.log(
      `local/update without index_url ${label}: ${formatRatio(withoutIndexUrl / edit.changedBytes)} bytes changed (${formatSize(withoutIndexUrl)}: the ` +
        `whole index from the archive, ${formatSize(archiveIndexBytes)} with header and hash, instead of ${formatSize(indexFetch.bytes)}; computed from this run)`,
    );
    const minimum = indexFetch.bytes + newChunkBytes;
    console.log(
      `local/update floor ${label}: ${formatRatio(fetched / minimum)} of what any chunk-level update must fetch (${formatSize(minimum)} = the index ` +
        `delta ${formatSize(indexFetch.bytes)} + the ${formatSize(newChunkBytes)} of chunks the installed version lacks; ` +
        `${formatRatio(minimum / edit.changedBytes)} bytes changed; chunk data alone: fetched ${formatSize(fetched - indexFetch.bytes)} = ` +
        `${formatRatio((fetched - indexFetch.bytes) / edit.changedBytes)} bytes changed)`,
    );
    console.log(
      `local/update time ${label}: ${formatRatio(updateMs / best.ms)} full install (update ${seconds(updateMs)}, full install ${seconds(best.ms)}; ` +
        `${formatSize(update.stats.bytesReused)} reused, ${formatSize(update.stats.bytesWritten)} written)`,
    );
    console.log(`local/fetched ${label}: ${formatRatio(fetched / best.result.stats.bytesFetched)} full install (${formatSize(fetched)} vs ${formatSize(best.result.stats.bytesFetched)})`);
  } finally {
    await server?.stop().catch((error: unknown) => fail(`stopping the server: ${String(error)}`));
    rmSync(root, { recursive: true, force: true });
  }
}

for (const tool of ['curl', 'unzip']) {
  if (!Bun.which(tool)) {
    console.error(`bench: ${tool} is missing; install it with: apt-get install -y ${tool}`);
    process.exit(2);
  }
}
console.log(`bench: local install engine on a ${sizeMiB} MiB build (seed ${seed}), the real server as a child process (${databaseUrl ? 'PostgreSQL' : 'PGlite'}), loopback, temp in ${tmpRoot}`);
try {
  await main();
} catch (error) {
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
}
process.exit(hasFailed() ? 1 : 0);
