import { concatBytes } from '../bytes.ts';
import { ArchiveError } from '../errors.ts';
import { decodeVarint } from '../varint.ts';
import type { RemoteStats } from './request.ts';

/**
 * A response body read in exact lengths, synchronously while the received piece holds them: the hot
 * loop awaits only when it needs the next piece, not once per chunk.
 */
export class BodyReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private piece: Uint8Array = new Uint8Array(0);
  private offset = 0;
  private done = false;

  constructor(
    stream: ReadableStream<Uint8Array>,
    private readonly stats?: RemoteStats,
    private readonly signal?: AbortSignal,
  ) {
    this.reader = stream.getReader();
  }

  get buffered(): number {
    return this.piece.length - this.offset;
  }

  /** Pulls the next piece; false at the end of the body. */
  private async pull(): Promise<boolean> {
    if (this.done) return false;
    let result: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;
    try {
      result = await this.reader.read();
    } catch (error) {
      this.signal?.throwIfAborted();
      throw new ArchiveError('archive_ended', 'the archive download failed', { cause: error });
    }
    if (result.done) {
      this.done = true;
      return false;
    }
    this.signal?.throwIfAborted();
    if (this.stats) this.stats.bytesFetched += result.value.length;
    this.piece = result.value;
    this.offset = 0;
    return true;
  }

  /** `length` bytes if the current piece holds them all (a view, no copy), else undefined. */
  takeSync(length: number): Uint8Array | undefined {
    if (this.piece.length - this.offset < length) return undefined;
    const out = this.piece.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  /** Exactly `length` bytes (copied together when they span pieces); archive_ended when the body ends first. */
  async take(length: number): Promise<Uint8Array> {
    const direct = this.takeSync(length);
    if (direct !== undefined) return direct;
    // A declared length is only a claim: gather what really arrives before allocating the whole.
    const parts: Uint8Array[] = [];
    let filled = 0;
    while (filled < length) {
      if (this.piece.length === this.offset && !(await this.pull())) {
        throw new ArchiveError('archive_ended', `the archive ended ${length - filled} bytes early`);
      }
      const count = Math.min(length - filled, this.piece.length - this.offset);
      parts.push(this.piece.subarray(this.offset, this.offset + count));
      this.offset += count;
      filled += count;
    }
    return parts.length === 1 ? parts[0]! : concatBytes(parts, length);
  }

  /** The rest of the body (at most `limit` bytes, else invalid_option), copied into one array. */
  async readAll(limit: number): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      if (this.piece.length === this.offset && !(await this.pull())) break;
      const part = this.piece.subarray(this.offset);
      this.offset = this.piece.length;
      size += part.length;
      if (size > limit) throw new ArchiveError('invalid_option', `the body is above ${limit} bytes`);
      parts.push(part);
    }
    return concatBytes(parts, size);
  }

  /** Skips `length` bytes without keeping them. */
  async skip(length: number): Promise<void> {
    let left = length;
    while (left > 0) {
      if (this.piece.length === this.offset && !(await this.pull())) {
        throw new ArchiveError('archive_ended', `the archive ended ${left} bytes early`);
      }
      const count = Math.min(left, this.piece.length - this.offset);
      this.offset += count;
      left -= count;
    }
  }

  async varint(): Promise<number> {
    // A varint is at most 8 bytes; gather up to 8 (or what is left) and decode.
    const bytes: number[] = [];
    for (;;) {
      if (this.piece.length === this.offset && !(await this.pull())) throw new ArchiveError('archive_ended', 'the archive ended inside a number');
      const byte = this.piece[this.offset++]!;
      bytes.push(byte);
      if (byte < 0x80 || bytes.length >= 8) return decodeVarint(Uint8Array.from(bytes), 0).value;
    }
  }

  async cancel(): Promise<void> {
    this.done = true;
    await this.reader.cancel().catch(() => undefined);
  }
}
