import { ArchiveError, toArchiveError } from '../errors.ts';
import { detectAdapters, type ArchiveAdapters } from '../adapters.ts';
import { equalBytes, toHex } from '../bytes.ts';
import type { ArchiveChunk } from '../types.ts';
import { BodyReader } from './body-reader.ts';
import { checkContentRange, request, type RemoteOptions } from './request.ts';
import { DEFAULT_RUN_OPTIONS, type PlannedChunk, type Run } from './run-plan.ts';

/**
 * The wanted chunks of planned runs (run-plan.ts) fetched, one Range request per run and a few runs at
 * once; each chunk decompressed (zstd, output bounded by its declared size) and checked against its
 * hash before the caller sees it.
 */
export type RunOptions<T extends PlannedChunk> = RemoteOptions & {
  /**
   * Receives each missing chunk of a run once its raw bytes are verified (gap chunks are skipped). The
   * bytes may be a view into the response's buffer: copy them to keep them past the call.
   */
  onChunk(planned: T, bytes: Uint8Array): void | Promise<void>;
};

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> => value instanceof Promise;

/** Raw bytes of a stored chunk: decompressed (bounded by its size) when stored compressed, then verified. */
export async function decodeChunk(stored: Uint8Array, chunk: ArchiveChunk, adapters: ArchiveAdapters): Promise<Uint8Array> {
  let bytes = stored;
  if (chunk.compressedSize !== chunk.size) {
    try {
      const out = adapters.zstdDecompress(stored, chunk.size);
      bytes = isPromise(out) ? await out : out;
    } catch (error) {
      throw toArchiveError(error, 'wrong_chunk_hash', `chunk ${toHex(chunk.hash).slice(0, 12)}… does not decompress`);
    }
  }
  if (bytes.length !== chunk.size) throw new ArchiveError('wrong_chunk_hash', `chunk ${toHex(chunk.hash).slice(0, 12)}… has the wrong size`);
  const digest = adapters.sha256(bytes);
  if (!equalBytes(isPromise(digest) ? await digest : digest, chunk.hash)) {
    throw new ArchiveError('wrong_chunk_hash', `chunk ${toHex(chunk.hash).slice(0, 12)}… does not match its hash`);
  }
  return bytes;
}

/** Fetches one run with a Range request and hands each verified missing chunk to `onChunk`. */
export async function fetchRun<T extends PlannedChunk>(url: string, run: Run<T>, options: RunOptions<T>): Promise<void> {
  const adapters = options.adapters ?? detectAdapters();
  const response = await request(url, `bytes=${run.start}-${run.end - 1}`, options);
  let position: number;
  if (response.status === 206) {
    await checkContentRange(response, run.start, run.end);
    position = run.start;
  } else {
    position = 0; // the whole archive: skip to the run
  }
  const body = new BodyReader(response.body!, options.stats, options.signal);
  try {
    for (const planned of run.chunks) {
      options.signal?.throwIfAborted();
      if (position < planned.offset) {
        await body.skip(planned.offset - position);
        position = planned.offset;
      }
      const size = planned.chunk.compressedSize;
      position += size;
      if (!planned.missing) {
        await body.skip(size);
        continue;
      }
      const stored = body.takeSync(size) ?? (await body.take(size));
      const bytes = planned.chunk.compressedSize === planned.chunk.size ? await verifyRaw(stored, planned.chunk, adapters) : await decodeChunk(stored, planned.chunk, adapters);
      const handled = options.onChunk(planned, bytes);
      if (handled !== undefined) await handled;
    }
  } finally {
    await body.cancel();
  }
}

/** Raw (uncompressed) stored bytes: the hash check alone, without a promise when the adapter hashes synchronously. */
function verifyRaw(bytes: Uint8Array, chunk: ArchiveChunk, adapters: ArchiveAdapters): Uint8Array | Promise<Uint8Array> {
  const fail = () => new ArchiveError('wrong_chunk_hash', `chunk ${toHex(chunk.hash).slice(0, 12)}… does not match its hash`);
  if (bytes.length !== chunk.size) throw fail();
  const digest = adapters.sha256(bytes);
  if (isPromise(digest)) {
    return digest.then((value) => {
      if (!equalBytes(value, chunk.hash)) throw fail();
      return bytes;
    });
  }
  if (!equalBytes(digest, chunk.hash)) throw fail();
  return bytes;
}

/**
 * Fetches every run, `concurrency` at once (default 4). The first failure stops the others (their
 * requests are aborted) and is thrown; an abort of `signal` throws its reason.
 */
export async function fetchRuns<T extends PlannedChunk>(url: string, runs: readonly Run<T>[], options: RunOptions<T> & { concurrency?: number }): Promise<void> {
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_RUN_OPTIONS.concurrency);
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < runs.length) {
      const run = runs[next++]!;
      try {
        await fetchRun(url, run, { ...options, signal });
      } catch (error) {
        if (failure === undefined) {
          failure = { error };
          stop.abort(error);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, runs.length) }, worker));
  if (failure !== undefined) {
    options.signal?.throwIfAborted();
    throw failure.error;
  }
}
