import { concatBytes } from './bytes.ts';
import { ArchiveError } from './errors.ts';
import { decodeVarint } from './varint.ts';

/** Exact-length reads over a byte stream; a stream that ends too early is archive_ended. */
export class StreamByteReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private buffer: Uint8Array = new Uint8Array(0);
  private offset = 0;
  private ended = false;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader();
  }

  private available(): number {
    return this.buffer.length - this.offset;
  }

  /** Pulls one more piece; false at the end of the stream. */
  private async fill(): Promise<boolean> {
    if (this.ended) return false;
    let result: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;
    try {
      result = await this.reader.read();
    } catch (error) {
      if (error instanceof ArchiveError) throw error;
      throw new ArchiveError('archive_ended', 'archive stream failed', { cause: error });
    }
    if (result.done) {
      this.ended = true;
      return false;
    }
    if (!(result.value instanceof Uint8Array)) throw new ArchiveError('invalid_entry', 'archive stream must carry bytes');
    const rest = this.buffer.subarray(this.offset);
    if (rest.length === 0) {
      this.buffer = result.value;
    } else {
      const merged = new Uint8Array(rest.length + result.value.length);
      merged.set(rest);
      merged.set(result.value, rest.length);
      this.buffer = merged;
    }
    this.offset = 0;
    return true;
  }

  /**
   * Exactly `length` bytes if the current piece already holds them (a view, no copy, no await), else
   * undefined and nothing is consumed: the caller then awaits read(). Saves a promise per chunk.
   */
  take(length: number): Uint8Array | undefined {
    if (this.available() < length) return undefined;
    const out = this.buffer.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  /** Exactly `length` bytes; a view into the stream's own piece when it holds them all (no copy). */
  async read(length: number): Promise<Uint8Array> {
    const whole = this.take(length);
    if (whole !== undefined) return whole;
    // A declared length is only a claim: gather what really arrives and allocate the whole only once it
    // has, so a 10-byte stream declaring a 256 MiB index costs nothing before it ends.
    const pieces: Uint8Array[] = [];
    let filled = 0;
    while (filled < length) {
      if (this.available() === 0 && !(await this.fill())) {
        throw new ArchiveError('archive_ended', `archive ended ${length - filled} bytes early`);
      }
      const count = Math.min(length - filled, this.available());
      pieces.push(this.buffer.subarray(this.offset, this.offset + count));
      filled += count;
      this.offset += count;
    }
    return concatBytes(pieces, length);
  }

  async readVarint(): Promise<number> {
    for (;;) {
      const view = this.buffer.subarray(this.offset);
      // A varint is at most 8 bytes: decode once they are here or the stream has ended.
      let complete = false;
      for (let i = 0; i < view.length && i < 8; i++) {
        if (view[i]! < 0x80) {
          complete = true;
          break;
        }
      }
      if (complete || view.length >= 8) {
        const { value, next } = decodeVarint(this.buffer, this.offset);
        this.offset = next;
        return value;
      }
      if (!(await this.fill())) throw new ArchiveError('archive_ended', 'archive ended inside a number');
    }
  }

  async atEnd(): Promise<boolean> {
    while (this.available() === 0) if (!(await this.fill())) return true;
    return false;
  }

  async cancel(reason?: unknown): Promise<void> {
    this.ended = true;
    await this.reader.cancel(reason).catch(() => undefined);
  }
}
