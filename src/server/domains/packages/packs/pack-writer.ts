import { noteTransientBytes } from '../../../memory/transient-bytes.ts';
import type { BlobStore } from '../../../storage/index.ts';
import { newPackId, packKey } from '../blob-keys.ts';
import type { PackedChunk, SealedPack } from './pack-rows.ts';

/**
 * Writes chunks into pack blobs as one stream per pack (the file store writes and syncs one file, the S3
 * store makes a multipart upload with bounded memory). Appended bytes are gathered into pieces of
 * `pieceBytes` (a copy: a write per 256 KiB rather than one per chunk; measured faster than both per-chunk
 * and 1-4 MiB pieces) that go straight into the blob being written, at most `queuedPieces` waiting, so
 * memory stays flat whatever the package size. A pack
 * is sealed once it holds `packSize` bytes (one chunk may take it past that) or at finish(); its owner's
 * `onSealed` then records it (recordNewPack, recordRepack) while the next packs fill: up to
 * `finishingPacks` being finished at once, so the file store's syncs overlap the writing instead of
 * pacing it. A failure (the store's, onSealed's) is thrown by the next call, and no wait outlives the
 * store's failure (a full disk ends the pack being sealed too); abort() errors the pack being written,
 * so its blob never appears.
 */
export type PackWriter = {
  /** Adds a chunk's stored bytes. */
  append(bytes: Uint8Array, chunk: Omit<PackedChunk, 'offset'>): Promise<void>;
  /** Seals the last pack and waits until every pack is recorded. */
  finish(): Promise<void>;
  /** Drops the pack being written (no blob appears) and waits for those being finished. */
  abort(reason: unknown): Promise<void>;
};

export type PackWriterOptions = {
  storage: BlobStore;
  packSize: number;
  onSealed: (pack: SealedPack) => Promise<void>;
};

const pieceBytes = 256 * 1024;
const queuedPieces = 2;
const finishingPacks = 3;

type OpenPack = {
  id: string;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  stored: Promise<unknown>;
  /** Rejects when the store stops reading before the pack is closed (it failed): a wait for room ends there. */
  stopped: Promise<never>;
  size: number;
  chunks: PackedChunk[];
  piece: Uint8Array;
  filled: number;
};

export function createPackWriter(options: PackWriterOptions): PackWriter {
  let current: OpenPack | undefined;
  const finishing: Promise<void>[] = [];
  let failure: { error: unknown } | undefined;

  function open(): OpenPack {
    const id = newPackId();
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>(undefined, { highWaterMark: queuedPieces });
    const stored = options.storage.put(packKey(id), readable);
    stored.catch(() => undefined); // reported by append (ready) or seal
    const stopped = stored.then(() => {
      throw new Error('the pack store stopped reading');
    });
    stopped.catch(() => undefined);
    return { id, writer: writable.getWriter(), stored, stopped, size: 0, chunks: [], piece: new Uint8Array(pieceBytes), filled: 0 };
  }

  /** The store's own failure (a full disk) rather than the writer's echo of it (its reading stopped). */
  function storeFailure(pack: OpenPack, error: unknown): Promise<unknown> {
    return pack.stored.then(
      () => error,
      (failure: unknown) => failure,
    );
  }

  function fail(error: unknown): never {
    failure ??= { error };
    throw failure.error;
  }

  /** Hands the gathered bytes to the store once it has room for them. */
  async function flush(pack: OpenPack): Promise<void> {
    if (pack.filled === 0) return;
    await Promise.race([pack.writer.ready, pack.stopped]).catch(async (error) => fail(await storeFailure(pack, error)));
    pack.writer.write(pack.piece.subarray(0, pack.filled)).catch(() => undefined);
    noteTransientBytes(pieceBytes); // garbage once the store wrote it
    pack.piece = new Uint8Array(pieceBytes);
    pack.filled = 0;
  }

  async function seal(): Promise<void> {
    const pack = current!;
    current = undefined;
    await flush(pack);
    const done = (async () => {
      const closing = pack.writer.close();
      closing.catch(() => undefined);
      // A store that failed (a full disk) reads no more: the close would wait for room forever.
      await Promise.race([closing, pack.stored]).catch(async (error) => {
        throw await storeFailure(pack, error);
      });
      await pack.stored;
      await options.onSealed({ id: pack.id, size: pack.size, chunks: pack.chunks });
    })();
    done.catch(() => undefined);
    finishing.push(done);
    if (finishing.length > finishingPacks) await finishing.shift()!.catch(fail);
  }

  async function allFinished(): Promise<void> {
    const settled = await Promise.allSettled(finishing.splice(0));
    const rejected = settled.find((result) => result.status === 'rejected');
    if (rejected) fail(rejected.reason);
  }

  return {
    async append(bytes, chunk) {
      if (failure) throw failure.error;
      current ??= open();
      const pack = current;
      pack.chunks.push({ ...chunk, offset: pack.size });
      pack.size += bytes.byteLength;
      for (let from = 0; from < bytes.byteLength; ) {
        const take = Math.min(bytes.byteLength - from, pieceBytes - pack.filled);
        pack.piece.set(bytes.subarray(from, from + take), pack.filled);
        pack.filled += take;
        from += take;
        if (pack.filled === pieceBytes) await flush(pack);
      }
      if (pack.size >= options.packSize) await seal();
    },
    async finish() {
      if (failure) throw failure.error;
      if (current) await seal();
      await allFinished();
    },
    async abort(reason) {
      const pack = current;
      current = undefined;
      failure ??= { error: reason };
      if (pack) {
        await pack.writer.abort(reason).catch(() => undefined);
        await pack.stored.catch(() => undefined);
      }
      await allFinished().catch(() => undefined);
    },
  };
}
