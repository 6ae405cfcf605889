/**
 * Archive benchmark (`bun run bench:archive`): our writer and reader against casync and rsync on one
 * deterministic synthetic game build, measured in the same run. Prints one line per figure, ratio first.
 *
 *   BENCH_ARCHIVE_SIZE_MB  build size in MiB (default 1024; e.g. 64 for a quick run)
 *   BENCH_ARCHIVE_SEED     generator seed (default 1)
 *   BENCH_ARCHIVE_REPEAT   timed runs per packer, best kept (default 2; the machine may be shared)
 *   BENCH_ARCHIVE_TMPDIR   where the trees and archives go (default /dev/shm when it has room, else the OS temp dir)
 *   BENCH_ARCHIVE_SIM      0 skips the chunk-limit simulation
 *   BENCH_ARCHIVE_EXTRACT_ROUNDS  rounds of the extraction-vs-tar comparison, median kept (default 3)
 *   BENCH_ARCHIVE_ONLY     'extract' runs only the extraction-vs-tar comparison (after generating and packing)
 *
 * Needs casync and rsync for the baselines (`apt-get install -y casync rsync`) and GNU tar for the
 * extraction baseline; without them it says so and skips only those comparisons.
 */
import { mkdirSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_CHUNK_SIZE, MIN_CHUNK_SIZE, BOUNDARY_MASK_MODULUS, listUniqueChunks, packArchive, indexTree, readArchive, computePatchSize, type ArchiveIndex, type PackOptions } from '../../src/shared/archive/index.ts';
import { extractArchive } from '../../src/shared/archive/extract.ts';
import { simulateLimits, type ChunkLimits } from './archive/chunk-sim.ts';
import { generateBuild } from './archive/generate.ts';
import { loadTree } from './archive/load-tree.ts';
import { aptLine, findTool, measureRsyncBatch, run, runCasyncCatar, runCasyncMake, timeCat, type ToolName } from './archive/tools.ts';
import { applyUpdate, planUpdates } from './archive/updates.ts';

const MiB = 1024 * 1024;
const sizeMiB = Number(process.env.BENCH_ARCHIVE_SIZE_MB ?? 1024);
const seed = Number(process.env.BENCH_ARCHIVE_SEED ?? 1);
const repeat = Math.max(1, Number(process.env.BENCH_ARCHIVE_REPEAT ?? 2));
if (!Number.isFinite(sizeMiB) || sizeMiB < 1) throw new Error('BENCH_ARCHIVE_SIZE_MB must be a number ≥ 1');

type Timing = { wall: number; cpu: number };

const mbps = (bytes: number, seconds: number): string => `${(bytes / 1e6 / seconds).toFixed(0)} MB/s`;
const ratio = (value: number): string => `${value.toFixed(2)}x`;
const size = (bytes: number): string =>
  bytes >= 10 * MiB ? `${(bytes / MiB).toFixed(0)} MiB` : bytes >= 100 * 1024 ? `${(bytes / MiB).toFixed(2)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;

function chooseTempRoot(): string {
  if (process.env.BENCH_ARCHIVE_TMPDIR) return process.env.BENCH_ARCHIVE_TMPDIR;
  // Trees, archives and extraction take ≈ 5× the build: tmpfs keeps disk speed out of the figures.
  try {
    const stats = statfsSync('/dev/shm');
    if (stats.bavail * stats.bsize > sizeMiB * MiB * 6) return '/dev/shm';
  } catch {
    // no /dev/shm
  }
  return tmpdir();
}

async function timeAsync(work: () => Promise<void>): Promise<Timing> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { wall: (performance.now() - started) / 1000, cpu: (used.user + used.system) / 1e6 };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function best(timings: Timing[]): Timing {
  return { wall: Math.min(...timings.map((t) => t.wall)), cpu: Math.min(...timings.map((t) => t.cpu)) };
}

async function drainStream(stream: ReadableStream<Uint8Array>, onPiece: (piece: Uint8Array) => void): Promise<void> {
  const reader = stream.getReader();
  for (;;) {
    const next = await reader.read();
    if (next.done) return;
    onPiece(next.value);
  }
}

/** Packs `root` with our writer into `outPath` (tmpfs, like casync's store) and returns the result. */
async function packToFile(root: string, outPath: string, options: PackOptions) {
  const packed = packArchive(loadTree(root), options);
  const sink = Bun.file(outPath).writer({ highWaterMark: 4 * MiB });
  await drainStream(packed.stream, (piece) => {
    sink.write(piece);
  });
  await sink.end();
  return packed.done;
}

async function packToCounter(root: string, options: PackOptions) {
  const packed = packArchive(loadTree(root), options);
  let bytes = 0;
  await drainStream(packed.stream, (piece) => {
    bytes += piece.length;
  });
  const result = await packed.done;
  if (bytes !== result.totalSize) throw new Error(`writer reported ${result.totalSize} bytes but streamed ${bytes}`);
  return result;
}

/**
 * (d) Extraction against `tar -x` of the same tree (issue 17). The tree is packed as a .crt (uncompressed,
 * as a .tar is) and written as a .tar by `tar -cf`; both files are read once so both come from the page
 * cache (no cache is dropped anywhere). After one untimed round of each (JIT warm-up; the extracted tree
 * is compared with the original), `rounds` rounds alternating which goes first: `tar -xf` into an empty
 * folder, and extractArchive(Bun.file(crt).stream(), emptyFolder) (read, verify every chunk's SHA-256,
 * write files, modes and links). Median wall time of each; content MB/s; ratio = our throughput over
 * tar's (goal ≥ 0.80).
 */
async function compareExtractWithTar(root: string, crtPath: string, total: number, work: string, rounds: number): Promise<void> {
  const tar = Bun.which('tar');
  if (tar === null) {
    console.log('extract/tar: skipped (no tar on PATH; install with: apt-get install -y tar)');
    return;
  }
  const tarPath = join(work, 'tree.tar');
  run([tar, '-cf', tarPath, '-C', root, '.'], 'tar -cf');
  timeCat(tarPath);
  timeCat(crtPath);
  const target = join(work, 'extract-vs-tar');
  const fresh = (): void => {
    rmSync(target, { recursive: true, force: true });
    mkdirSync(target);
  };
  const ours: Timing[] = [];
  const theirs: Timing[] = [];
  const runTar = (): Timing => {
    fresh();
    const timed = run([tar, '-xf', tarPath, '-C', target], 'tar -xf');
    return { wall: timed.seconds, cpu: timed.cpu };
  };
  const runOurs = (): Promise<Timing> => {
    fresh();
    return timeAsync(() => extractArchive(Bun.file(crtPath).stream(), target));
  };
  // One untimed round each first: our code is compiled by the JIT as it runs (a long-lived helper or
  // agent runs warm), and the check that the tree comes out identical.
  await runOurs();
  run(['diff', '-rq', root, target], 'the tree extracted by extractArchive differs from the original');
  runTar();
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      theirs.push(runTar());
      ours.push(await runOurs());
    } else {
      ours.push(await runOurs());
      theirs.push(runTar());
    }
  }
  rmSync(target, { recursive: true, force: true });
  rmSync(tarPath, { force: true });
  const o = median(ours.map((t) => t.wall));
  const t = median(theirs.map((t) => t.wall));
  const r = t / o;
  const list = (timings: Timing[]): string => timings.map((x) => x.wall.toFixed(2)).join(' ');
  console.log(
    `extract/tar: ${ratio(r)} tar -x (ours ${mbps(total, o)}, tar -x ${mbps(total, t)} of content; median of ${rounds} alternating rounds, ` +
      `after a warm-up round; ours [${list(ours)}] s, tar [${list(theirs)}] s; CPU ours ${median(ours.map((x) => x.cpu)).toFixed(2)} s (all threads), tar ${median(theirs.map((x) => x.cpu)).toFixed(2)} s; ` +
      `extractArchive(Bun.file(crt).stream()) reads, verifies every chunk and writes; tar -xf of the same tree; both from the page cache; ` +
      `goal ≥ 0.80x ${r >= 0.8 ? 'ok' : 'MISSED'})`,
  );
}

async function main(): Promise<void> {
  const casync = findTool('casync');
  const rsync = findTool('rsync');
  const missing: ToolName[] = [];
  if (casync === undefined) missing.push('casync');
  if (rsync === undefined) missing.push('rsync');
  if (missing.length > 0) {
    console.log(`skip: ${missing.join(' and ')} not found; the ${missing.join('/')} comparisons are skipped (install with: ${aptLine(missing)})`);
  }

  const work = mkdtempSync(join(chooseTempRoot(), 'cartridge-bench-archive-'));
  const cleanup = (): void => rmSync(work, { recursive: true, force: true });
  process.on('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  try {
    const baseRoot = join(work, 'base');
    const genStarted = performance.now();
    const build = generateBuild(baseRoot, seed, sizeMiB);
    const genSeconds = (performance.now() - genStarted) / 1000;
    const total = build.totalBytes;
    console.log(
      `gen: ${build.files.length} files, ${size(total)} in ${genSeconds.toFixed(1)} s (${mbps(total, genSeconds)}) under ${work}; ` +
        `chunk limits min ${MIN_CHUNK_SIZE / 1024} KiB, boundary 1/${BOUNDARY_MASK_MODULUS}, max ${MAX_CHUNK_SIZE / 1024} KiB`,
    );
    const extractRounds = Math.max(1, Number(process.env.BENCH_ARCHIVE_EXTRACT_ROUNDS ?? 3));
    if (process.env.BENCH_ARCHIVE_ONLY === 'extract') {
      const crtPath = join(work, 'base-none.crt');
      await packToFile(baseRoot, crtPath, { compression: 0 });
      await compareExtractWithTar(baseRoot, crtPath, total, work, extractRounds);
      return;
    }
    // casync's MIN:AVG:MAX matched to ours: its average is the expected chunk size, ours is min + 1/p.
    const casyncSizes = { min: MIN_CHUNK_SIZE, avg: MIN_CHUNK_SIZE + BOUNDARY_MASK_MODULUS, max: MAX_CHUNK_SIZE };
    if (casync !== undefined) {
      console.log(`casync: make --chunk-size=${casyncSizes.min}:${casyncSizes.avg}:${casyncSizes.max} --digest=sha256 --compression=zstd --without=all --with=permissions`);
    }

    // (a) pack throughput, alternating ours and casync so a busy neighbour hurts both alike.
    const archives: Record<'none' | 'zstd', string> = { none: join(work, 'base-none.crt'), zstd: join(work, 'base-zstd.crt') };
    const baseIndexes: Partial<Record<'none' | 'zstd', ArchiveIndex>> = {};
    const archiveBytes: Record<'none' | 'zstd', number> = { none: 0, zstd: 0 };
    for (const mode of ['none', 'zstd'] as const) {
      const options: PackOptions = { compression: mode === 'zstd' ? 1 : 0 };
      const ours: Timing[] = [];
      const theirs: Timing[] = [];
      let casyncBytes = 0;
      for (let round = 0; round < repeat; round++) {
        ours.push(
          await timeAsync(async () => {
            const result = await packToFile(baseRoot, archives[mode], options);
            baseIndexes[mode] = result.index;
            archiveBytes[mode] = result.totalSize;
          }),
        );
        if (casync !== undefined) {
          const timed = runCasyncMake(casync, baseRoot, work, casyncSizes);
          casyncBytes = timed.storeBytes;
          theirs.push({ wall: timed.seconds, cpu: timed.cpu });
        }
      }
      const o = best(ours);
      if (casync === undefined) {
        console.log(`pack/${mode}: skipped casync comparison (ours ${mbps(total, o.wall)}, archive ${size(archiveBytes[mode])}; install casync with: ${aptLine(['casync'])})`);
        continue;
      }
      const t = best(theirs);
      const what = mode === 'none' ? 'ours uncompressed; casync cannot store uncompressed chunks, so its cheapest make (zstd) is the baseline' : 'both zstd';
      console.log(
        `pack/${mode}: ${ratio(t.wall / o.wall)} casync (ours ${mbps(total, o.wall)}, casync ${mbps(total, t.wall)}; ` +
          `per CPU second ${ratio(t.cpu / o.cpu)}: ours ${mbps(total, o.cpu)}, casync ${mbps(total, t.cpu)}; ` +
          `stored: ours ${size(archiveBytes[mode])}, casync ${size(casyncBytes)}; best of ${repeat}; ${what})`,
      );
      if (mode === 'none') {
        const catar: Timing[] = [];
        for (let round = 0; round < repeat; round++) {
          const timed = runCasyncCatar(casync, baseRoot, work);
          catar.push({ wall: timed.seconds, cpu: timed.cpu });
        }
        const c = best(catar);
        console.log(
          `pack/none-vs-catar: ${ratio(c.wall / o.wall)} casync .catar (ours ${mbps(total, o.wall)}, casync make .catar ${mbps(total, c.wall)}: ` +
            `serialisation only, no chunking, hashing or compression)`,
        );
      }
    }

    // Chunk statistics of the base, for the limits discussion.
    const baseIndex = baseIndexes.none;
    if (baseIndex === undefined) throw new Error('no base index');
    const unique = listUniqueChunks(baseIndex);
    const atMax = unique.filter((chunk) => chunk.size === MAX_CHUNK_SIZE).length;
    const belowMin = unique.filter((chunk) => chunk.size <= MIN_CHUNK_SIZE).length;
    const meanSize = unique.reduce((sum, chunk) => sum + chunk.size, 0) / Math.max(1, unique.length);
    console.log(
      `chunks: ${unique.length} distinct, mean ${size(meanSize)}, ${((100 * atMax) / unique.length).toFixed(1)}% forced at max ${MAX_CHUNK_SIZE / 1024} KiB, ` +
        `${((100 * belowMin) / unique.length).toFixed(1)}% ≤ min (whole small files and file tails); index ${size(archiveBytes.none - unique.reduce((s, c) => s + c.size, 0))}`,
    );

    // (b) patches: ours (patch mode against the base index) vs rsync batches vs the full archive.
    const updates = planUpdates(build, seed, sizeMiB / 1024);
    const patchRatios: Array<{ name: string; ratio: number; dataRatio: number }> = [];
    let shiftChunks = -1;
    // An rsync batch always carries the whole file list: measure it on an unchanged tree to split it off.
    let rsyncListBytes = { block64: 0, standard: 0 };
    if (rsync !== undefined) {
      const same = join(work, 'update-none');
      applyUpdate(baseRoot, same, { name: 'all', description: 'no change', changes: [] });
      rsyncListBytes = { block64: measureRsyncBatch(rsync, baseRoot, same, work, 65536), standard: measureRsyncBatch(rsync, baseRoot, same, work) };
      rmSync(same, { recursive: true, force: true });
    }
    for (const update of updates) {
      const root = join(work, `update-${update.name}`);
      applyUpdate(baseRoot, root, update);
      const ours = await packToCounter(root, { compression: 0, base: baseIndex });
      const zstdBase = baseIndexes.zstd;
      let zstdPatch = -1;
      if (zstdBase !== undefined) zstdPatch = computePatchSize(await indexTree(loadTree(root), { compression: 1, base: zstdBase }), zstdBase);
      if (update.name === 'shift-4k') shiftChunks = ours.storedChunkCount;
      const detail =
        `ours ${size(ours.patchSize)} in ${ours.storedChunkCount} changed chunks, ${size(zstdPatch)} with zstd, patch archive with its index ${size(ours.totalSize)}`;
      if (rsync === undefined) {
        console.log(`patch/${update.name}: skipped rsync comparison (${detail}; full ${size(total)}; install rsync with: ${aptLine(['rsync'])})`);
      } else {
        const rsync64 = measureRsyncBatch(rsync, baseRoot, root, work, 65536);
        const rsyncDefault = measureRsyncBatch(rsync, baseRoot, root, work);
        const data64 = Math.max(1, rsync64 - rsyncListBytes.block64);
        const r = rsync64 / Math.max(1, ours.patchSize);
        const dataRatio = data64 / Math.max(1, ours.patchSize);
        patchRatios.push({ name: update.name, ratio: r, dataRatio });
        console.log(
          `patch/${update.name}: ${ratio(r)} smaller than rsync-64K (${detail}; rsync-64K batch ${size(rsync64)} of which delta ${size(data64)} ` +
            `[delta only: ${ratio(dataRatio)}], rsync-default batch ${size(rsyncDefault)} (delta ${size(rsyncDefault - rsyncListBytes.standard)}), ` +
            `full ${size(total)}; ${update.description})`,
        );
      }
      rmSync(root, { recursive: true, force: true });
    }
    if (rsync !== undefined) console.log(`patch/overhead: rsync file list ${size(rsyncListBytes.block64)} per batch; our index ${size(archiveBytes.none - unique.reduce((s, c) => s + c.size, 0))} per patch archive`);

    // (c) reader: stream the archive in, verify every hash, write the tree out; vs cat to /dev/null.
    for (const mode of ['none', 'zstd'] as const) {
      const target = join(work, `extract-${mode}`);
      const reads: Timing[] = [];
      for (let round = 0; round < repeat; round++) {
        rmSync(target, { recursive: true, force: true });
        reads.push(await timeAsync(() => extractArchive(Bun.file(archives[mode]).stream(), target)));
      }
      const r = best(reads);
      const cat = Math.min(...Array.from({ length: repeat }, () => timeCat(archives[mode])));
      // The same without writing files: how much of the time is the reader itself.
      const verify = await timeAsync(async () => {
        const result = await readArchive(Bun.file(archives[mode]).stream());
        const chunks = result.chunks();
        for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) {
          // every chunk is decompressed and checked against its hash by the reader
        }
      });
      run(['diff', '-rq', baseRoot, target], `extracted ${mode} tree differs from the original`);
      console.log(
        `read/${mode}: ${ratio(cat / r.wall)} cat (ours ${mbps(archiveBytes[mode], r.wall)} of archive, ${mbps(total, r.wall)} of content: ` +
          `stream, verify, extract; cat to /dev/null ${mbps(archiveBytes[mode], cat)}; extracted tree identical; ` +
          `without extracting ${ratio(cat / verify.wall)} cat, ${mbps(archiveBytes[mode], verify.wall)})`,
      );
      rmSync(target, { recursive: true, force: true });
    }

    // (d) extraction against tar -x of the same tree.
    await compareExtractWithTar(baseRoot, archives.none, total, work, extractRounds);

    // Chunk limits: what other min/max would have given on this build and these updates.
    if (process.env.BENCH_ARCHIVE_SIM !== '0') {
      const candidates: ChunkLimits[] = [
        { min: 16 * 1024, max: 128 * 1024 },
        { min: 16 * 1024, max: 256 * 1024 },
        { min: MIN_CHUNK_SIZE, max: MAX_CHUNK_SIZE },
        { min: 32 * 1024, max: 128 * 1024 },
        { min: 64 * 1024, max: 256 * 1024 },
        { min: 64 * 1024, max: 512 * 1024 },
      ];
      for (const limits of candidates) {
        const sim = simulateLimits(build, updates, limits);
        const current = limits.min === MIN_CHUNK_SIZE && limits.max === MAX_CHUNK_SIZE ? ' (current)' : '';
        const patches = [...sim.patchBytes].map(([name, bytes]) => `${name} ${size(bytes)}`).join(', ');
        console.log(
          `limits/min ${limits.min / 1024}K max ${limits.max / 1024}K${current}: ${sim.chunkCount} chunks (mean ${size(sim.meanChunkSize)}, ` +
            `chunk records ≈ ${size(sim.chunkCount * 36)}); new chunk bytes: ${patches}`,
        );
      }
    }

    const goals = [
      ...patchRatios.map((p) => `${p.name} ${p.ratio >= 1 ? 'ok' : 'MISSED'}${p.dataRatio >= 1 ? '' : ' (delta only: MISSED)'}`),
      `4 KiB shift changed ${shiftChunks} chunk(s) ${shiftChunks >= 0 && shiftChunks <= 3 ? 'ok' : 'MISSED'}`,
    ];
    console.log(`goals: patch no worse than rsync-64K and 4 KiB shift ≤ 3 chunks: ${goals.join(', ')}`);
  } finally {
    cleanup();
  }
}

await main();
