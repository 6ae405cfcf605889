import { rmSync, statSync } from 'node:fs';

/** External baselines: found on PATH, never installed by the benchmark. */
export type ToolName = 'casync' | 'rsync';

export const aptLine = (tools: readonly ToolName[]): string => `apt-get install -y ${tools.join(' ')}`;

export function findTool(name: ToolName): string | undefined {
  return Bun.which(name) ?? undefined;
}

export type Timed = { seconds: number; cpu: number };

/** Runs a command to completion, failing loudly with its stderr (a broken baseline is not a skip). */
export function run(argv: string[], what: string): Timed {
  const started = performance.now();
  const result = Bun.spawnSync(argv, { stdout: 'ignore', stderr: 'pipe' });
  const seconds = (performance.now() - started) / 1000;
  if (result.exitCode !== 0) {
    throw new Error(`${what} failed (${argv.join(' ')}): exit ${result.exitCode}\n${result.stderr.toString()}`);
  }
  const cpu = result.resourceUsage === undefined ? seconds : Number(result.resourceUsage.cpuTime.total) / 1e6;
  return { seconds, cpu };
}

export type ChunkSizes = { min: number; avg: number; max: number };

/**
 * casync make into a fresh chunk store: chunking, SHA-256 per chunk (matched to ours) and zstd (casync's
 * store always compresses; there is no uncompressed store).
 */
export function runCasyncMake(casync: string, tree: string, workDir: string, sizes: ChunkSizes): Timed & { storeBytes: number } {
  const store = `${workDir}/casync-store`;
  const index = `${workDir}/tree.caidx`;
  rmSync(store, { recursive: true, force: true });
  rmSync(index, { force: true });
  const timed = run(
    [casync, 'make', '--without=all', '--with=permissions', `--store=${store}`, `--chunk-size=${sizes.min}:${sizes.avg}:${sizes.max}`,
      '--digest=sha256', '--compression=zstd', index, tree],
    'casync make (.caidx)',
  );
  const storeBytes = sumFileSizes(store);
  rmSync(store, { recursive: true, force: true });
  rmSync(index, { force: true });
  return { ...timed, storeBytes };
}

/** casync make of a plain .catar: serialisation only (no chunking, hashing or compression). */
export function runCasyncCatar(casync: string, tree: string, workDir: string): Timed & { bytes: number } {
  const archive = `${workDir}/tree.catar`;
  rmSync(archive, { force: true });
  const timed = run([casync, 'make', '--without=all', '--with=permissions', archive, tree], 'casync make (.catar)');
  const bytes = statSync(archive).size;
  rmSync(archive, { force: true });
  return { ...timed, bytes };
}

/**
 * A butler-style delta: the rsync batch that turns `oldTree` into `newTree`, with a given block size
 * (undefined: rsync's default, ≈ √file size). Only files whose size or mtime differ are delta-encoded,
 * as unchanged files are hard links into the base.
 */
export function measureRsyncBatch(rsync: string, oldTree: string, newTree: string, workDir: string, blockSize?: number): number {
  const batch = `${workDir}/rsync-batch`;
  rmSync(batch, { force: true });
  rmSync(`${batch}.sh`, { force: true });
  const argv = [rsync, '-r', '--no-whole-file', `--only-write-batch=${batch}`];
  if (blockSize !== undefined) argv.push(`--block-size=${blockSize}`);
  run([...argv, `${newTree}/`, `${oldTree}/`], 'rsync --only-write-batch');
  const size = statSync(batch).size;
  rmSync(batch, { force: true });
  rmSync(`${batch}.sh`, { force: true });
  return size;
}

/** Time to `cat` a file to /dev/null: the reader's ceiling. */
export function timeCat(path: string): number {
  return run(['sh', '-c', 'cat "$1" > /dev/null', 'sh', path], 'cat').seconds;
}

function sumFileSizes(dir: string): number {
  const result = Bun.spawnSync(['du', '-sb', '--apparent-size', dir], { stdout: 'pipe' });
  return Number(result.stdout.toString().split('\t')[0] ?? 0);
}
