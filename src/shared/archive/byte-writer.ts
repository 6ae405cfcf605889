import { INDEX_BUFFER_SIZE } from './constants.ts';
import { encodeVarint } from './varint.ts';

/** Appends bytes into fixed 1024-byte buffers (spec §9: the index is written in 1024-byte buffers). */
export class BufferedByteWriter {
  private readonly full: Uint8Array[] = [];
  private current = new Uint8Array(INDEX_BUFFER_SIZE);
  private fill = 0;
  private total = 0;

  get length(): number {
    return this.total;
  }

  writeByte(value: number): void {
    if (this.fill === INDEX_BUFFER_SIZE) this.flush();
    this.current[this.fill++] = value;
    this.total++;
  }

  writeBytes(bytes: Uint8Array): void {
    let offset = 0;
    while (offset < bytes.length) {
      if (this.fill === INDEX_BUFFER_SIZE) this.flush();
      const count = Math.min(bytes.length - offset, INDEX_BUFFER_SIZE - this.fill);
      this.current.set(bytes.subarray(offset, offset + count), this.fill);
      this.fill += count;
      offset += count;
    }
    this.total += bytes.length;
  }

  writeVarint(value: number): void {
    if (value < 0x80 && Number.isInteger(value) && value >= 0) this.writeByte(value);
    else this.writeBytes(encodeVarint(value));
  }

  /** Every buffer is exactly 1024 bytes except possibly the last. */
  finish(): Uint8Array[] {
    if (this.fill > 0) this.full.push(this.current.subarray(0, this.fill));
    this.current = new Uint8Array(INDEX_BUFFER_SIZE);
    this.fill = 0;
    return this.full.splice(0);
  }

  private flush(): void {
    this.full.push(this.current);
    this.current = new Uint8Array(INDEX_BUFFER_SIZE);
    this.fill = 0;
  }
}
