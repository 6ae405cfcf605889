import {
  ArchiveError,
  archiveErrorCodes,
  concatBytes,
  createWebAdapters,
  encodeHeader,
  encodeIndex,
  encodePatchSection,
  equalBytes,
  readAllFiles,
  readArchive,
  toHex,
  type ArchiveAdapters,
  type ArchiveErrorCode,
  type ArchiveIndex,
  type ReadOptions,
} from '../../../src/shared/archive/index.ts';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { extractArchive } from '../../../src/shared/archive/extract.ts';
import { splitPieces, type FuzzInput } from './mutate.ts';

/**
 * What reading one input led to. `ok` and `error` (an ArchiveError with a catalogued code) are the
 * acceptable outcomes. Findings: `crash` (anything but an ArchiveError thrown, or an ArchiveError
 * wrapping a TypeError/RangeError/...: a bug behind a catch-all), `uncatalogued` (an
 * ArchiveError with a code outside the catalogue), `wrong_result` (an unmutated seed not read back
 * intact, or a read that succeeded over a failed stream), `noncanonical` (an accepted input whose bytes
 * differ from what the writer makes of the same content: two byte strings for one archive; a finding
 * unless the run is lenient).
 */
export type Outcome =
  | { kind: 'ok' }
  | { kind: 'error'; code: ArchiveErrorCode }
  | { kind: 'crash' | 'uncatalogued' | 'wrong_result' | 'noncanonical'; message: string };

const catalogue = new Set<string>(archiveErrorCodes);
let webAdapters: ArchiveAdapters | undefined;

/** A stream over the input in the planned pieces, pull-driven like a network body. */
function streamInput(input: FuzzInput, runSeed: number): ReadableStream<Uint8Array> {
  const pieces = splitPieces(input, runSeed);
  let offset = 0;
  let next = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (input.failAfter !== undefined && offset >= input.failAfter) {
          controller.error(new Error('connection reset (injected)'));
          return;
        }
        const size = pieces[next++];
        if (size === undefined || offset >= input.bytes.length) {
          controller.close();
          return;
        }
        // A fresh copy per piece: the reader may keep views, and the next input must not alias it.
        controller.enqueue(input.bytes.slice(offset, offset + size));
        offset += size;
      },
    },
    { highWaterMark: 0 },
  );
}

/** Programming errors: a catch-all that wraps one of these into an ArchiveError hides a crash. */
const bugErrors = [TypeError, RangeError, ReferenceError, SyntaxError, EvalError];

function classifyError(error: unknown): Outcome {
  if (!(error instanceof ArchiveError)) return { kind: 'crash', message: describe(error) };
  if (!catalogue.has(error.code)) return { kind: 'uncatalogued', message: describe(error) };
  for (let cause: unknown = error.cause, depth = 0; cause !== undefined && depth < 8; depth++) {
    // Decompressors report corrupt frames with RangeErrors of their own (node:zlib's maxOutputLength,
    // the wasm decoder's output): mapping those to wrong_chunk_hash is the intended handling.
    const fromDecompressor = cause instanceof Error && /node:zlib|zstddec/.test(cause.stack ?? '');
    if (!fromDecompressor && bugErrors.some((type) => cause instanceof type)) {
      return { kind: 'crash', message: `ArchiveError ${error.code} wraps ${describe(cause)}` };
    }
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return { kind: 'error', code: error.code };
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}\n${(error.stack ?? '').split('\n').slice(1, 6).join('\n')}`;
  return `non-Error thrown: ${String(error)}`;
}

/** Reads one input completely (index, every chunk, the end check) and classifies the result. */
export async function executeInput(input: FuzzInput, runSeed: number): Promise<Outcome> {
  const options: ReadOptions = {};
  if (input.webAdapters) options.adapters = webAdapters ??= createWebAdapters();
  const baseChunks = input.seed.baseChunks;
  if (input.serveBase && baseChunks !== undefined) options.getBaseChunk = (hash) => baseChunks.get(toHex(hash));
  const unmutated = input.recipe[1] === 'unmutated' && input.failAfter === undefined;
  try {
    const result = await readArchive(streamInput(input, runSeed), options);
    if (input.extract) return await extractAndCheck(result);
    // readAllFiles holds every file in memory by design: only for trees a test would hold.
    if (input.readFiles && result.index.root.size <= 16 * 1024 * 1024 && (!input.seed.patch || input.serveBase)) {
      const files = await readAllFiles(result);
      if (unmutated && !sameFiles(files, input.seed.files)) return { kind: 'wrong_result', message: 'seed read back with different files' };
      return { kind: 'ok' };
    }
    const stored: number[] = [];
    const data: Uint8Array[] = [];
    for await (const chunk of result.chunks()) {
      if (!chunk.fromBase) {
        stored.push(chunk.ordinal);
        data.push(chunk.storedBytes);
      }
    }
    if (input.failAfter !== undefined && input.failAfter < input.bytes.length) {
      return { kind: 'wrong_result', message: 'read succeeded although the stream failed before its end' };
    }
    return checkCanonical(input, result.indexHash, result.index, result.baseIndexHash, stored, data);
  } catch (error) {
    if (unmutated) return { kind: 'wrong_result', message: `valid seed rejected: ${describe(error)}` };
    return classifyError(error);
  }
}

/**
 * Extracts into `sandbox/target` and checks that nothing landed beside the target and that no symlink
 * inside it points out of it, whether extraction succeeded or failed half way.
 */
async function extractAndCheck(result: Awaited<ReturnType<typeof readArchive>>): Promise<Outcome> {
  const sandbox = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'archive-fuzz-extract-'));
  const target = join(sandbox, 'target');
  let outcome: Outcome = { kind: 'ok' };
  try {
    await extractArchive(result, target);
  } catch (error) {
    outcome = classifyError(error);
  }
  try {
    const beside = readdirSync(sandbox).filter((name) => name !== 'target');
    if (beside.length > 0) return { kind: 'wrong_result', message: `extraction wrote outside its target: ${beside.join(', ')}` };
    const escape = findEscapingLink(target, target);
    if (escape !== undefined) return { kind: 'wrong_result', message: `extracted symlink leads outside the target: ${escape}` };
  } finally {
    // rm -rf, not rmSync: Bun's rmSync takes 6–18 s on a 1000-deep tree, which the watchdog calls a hang.
    const removed = Bun.spawnSync(['rm', '-rf', '--', sandbox]);
    if (removed.exitCode !== 0) rmSync(sandbox, { recursive: true, force: true });
  }
  return outcome;
}

function findEscapingLink(root: string, dir: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  for (const name of names) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) {
      const lexical = resolve(dirname(path), readlinkSync(path));
      let real = lexical;
      try {
        real = realpathSync(path);
      } catch {
        // dangling: the lexical target is what a later write would create
      }
      for (const candidate of [lexical, real]) if (candidate !== root && !candidate.startsWith(root + sep)) return `${path} → ${readlinkSync(path)}`;
    } else if (stat.isDirectory()) {
      const found = findEscapingLink(root, path);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function sameFiles(actual: Map<string, Uint8Array>, expected: Map<string, Uint8Array>): boolean {
  if (actual.size !== expected.size) return false;
  for (const [path, bytes] of expected) {
    const other = actual.get(path);
    if (other === undefined || !equalBytes(other, bytes)) return false;
  }
  return true;
}

/** An accepted archive must be byte for byte what the writer makes of its content. */
function checkCanonical(
  input: FuzzInput,
  indexHash: Uint8Array,
  index: ArchiveIndex,
  baseIndexHash: Uint8Array | undefined,
  stored: number[],
  data: Uint8Array[],
): Outcome {
  const indexBytes = concatBytes(encodeIndex(index));
  const parts = [encodeHeader(baseIndexHash !== undefined, indexBytes.length), indexBytes, indexHash];
  if (baseIndexHash !== undefined) parts.push(encodePatchSection(baseIndexHash, stored));
  const rebuilt = concatBytes([...parts, ...data]);
  if (equalBytes(rebuilt, input.bytes)) return { kind: 'ok' };
  let at = 0;
  while (at < rebuilt.length && at < input.bytes.length && rebuilt[at] === input.bytes[at]) at++;
  return { kind: 'noncanonical', message: `accepted bytes differ from the writer's encoding at byte ${at} (input ${input.bytes.length} bytes, canonical ${rebuilt.length})` };
}
