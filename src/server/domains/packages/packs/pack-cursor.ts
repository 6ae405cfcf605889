import type { BlobStore } from '../../../storage/index.ts';
import { packKey } from '../blob-keys.ts';

/**
 * One ranged read of a pack blob, consumed front to back: consecutive chunks of the pack come out of one
 * GET (one open file) instead of one each. Reads are queued in the order they are asked for (a reader's
 * read-ahead asks for several at once); bytes between two chunks (another package's, dead ones) are
 * skipped in the stream. Memory is the stream's own buffering, not the range.
 */
export class PackCursor {
  /** Where the next queued read starts (after every read asked for so far). */
  private next: number;
  private queue: Promise<unknown> = Promise.resolve();
  private piece: Uint8Array = new Uint8Array(0);
  private readonly reader: Promise<ReadableStreamDefaultReader<Uint8Array>>;
  private broken = false;
  private closed = false;

  constructor(
    storage: BlobStore,
    readonly packId: string,
    start: number,
    /** Exclusive end of the range asked for (the store clamps it to the blob's end). */
    readonly end: number,
  ) {
    this.next = start;
    this.reader = storage.get(packKey(packId), { start, end: end - 1 }).then((stream) => stream.getReader());
    this.reader.catch(() => undefined); // reported by the first read
  }

  /** Whether bytes offset..offset+length can come from this cursor without going back. */
  canRead(offset: number, length: number, maxSkip: number): boolean {
    return !this.broken && !this.closed && offset >= this.next && offset - this.next <= maxSkip && offset + length <= this.end;
  }

  read(offset: number, length: number): Promise<Uint8Array> {
    const skip = offset - this.next;
    this.next = offset + length;
    const result = this.queue.then(() => this.take(skip, length));
    this.queue = result.catch(() => {
      this.broken = true;
    });
    return result;
  }

  /** Ends the range once the reads queued so far are done. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.queue.then(async () => (await this.reader).cancel()).catch(() => undefined);
  }

  private async take(skip: number, length: number): Promise<Uint8Array> {
    const reader = await this.reader;
    while (skip > 0) {
      if (this.piece.byteLength === 0) this.piece = await this.nextPiece(reader);
      const dropped = Math.min(skip, this.piece.byteLength);
      this.piece = this.piece.subarray(dropped);
      skip -= dropped;
    }
    if (this.piece.byteLength === 0) this.piece = await this.nextPiece(reader);
    if (this.piece.byteLength >= length) {
      const bytes = this.piece.subarray(0, length);
      this.piece = this.piece.subarray(length);
      return bytes;
    }
    const bytes = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      if (this.piece.byteLength === 0) this.piece = await this.nextPiece(reader);
      const take = Math.min(length - filled, this.piece.byteLength);
      bytes.set(this.piece.subarray(0, take), filled);
      this.piece = this.piece.subarray(take);
      filled += take;
    }
    return bytes;
  }

  private async nextPiece(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Uint8Array> {
    const { done, value } = await reader.read();
    if (done) throw new Error(`pack ${this.packId} ended before a chunk it holds`);
    return value;
  }
}
