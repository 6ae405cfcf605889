import { ArchiveError } from '../../../../../shared/archive/index.ts';

/**
 * ZIP records (APPNOTE 6.3.x) written by hand, on purpose. The spec wants ZIP downloads that are
 * byte-for-byte deterministic AND served with Range, which means the byte offset of every record must
 * be known before a single file byte is read. The zip libraries for JavaScript (yazl, archiver,
 * fflate, client-zip, zip-stream) only produce the archive as a stream from its first byte: serving
 * bytes 900 MB..901 MB (a web seed asking for one piece) would regenerate the 900 MB before it. So
 * the layout is computed here from the index (sizes) and cached CRC-32s, and only these few fixed
 * structs are encoded by this file; CRC-32 itself comes from node:zlib.
 *
 * Choices: every entry STORED (method 0: the bytes are often compressed already, and a stored entry's
 * size is known without compressing), no data descriptors (CRC known up front), DOS time fixed at
 * 1980-01-01 00:00, UTF-8 names (flag bit 11), "made by" Unix so external attributes carry the mode,
 * ZIP64 extra fields only on the entries that need them and the ZIP64 end records only when the
 * counts or offsets overflow (small ZIPs stay plain ZIP 2.0 for old unzippers).
 */
const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
const FLAG_UTF8 = 0x0800;
const VERSION_MADE_BY_UNIX = (3 << 8) | 63;
const VERSION_PLAIN = 20;
const VERSION_ZIP64 = 45;
/** 1980-01-01: DOS date (year − 1980) << 9 | month << 5 | day; time 00:00:00. */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
const DOS_TIME = 0;
const MSDOS_DIRECTORY = 0x10;

export const MODE_FILE = 0o100644;
export const MODE_EXECUTABLE = 0o100755;
export const MODE_DIRECTORY = 0o40755;
export const MODE_SYMLINK = 0o120777;

export type ZipEntry = {
  /** UTF-8 path, '/'-separated; directories end with '/'. */
  name: Uint8Array;
  size: number;
  crc: number;
  mode: number;
  /** Offset of its local header. */
  offset: number;
};

class Writer {
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  private position = 0;
  constructor(size: number) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }
  u16(value: number, what = '16-bit field') {
    this.view.setUint16(this.position, fits(value, MAX16, what), true);
    this.position += 2;
  }
  u32(value: number, what = '32-bit field') {
    this.view.setUint32(this.position, fits(value, MAX32, what), true);
    this.position += 4;
  }
  u64(value: number, what = '64-bit field') {
    this.view.setBigUint64(this.position, BigInt(fits(value, Number.MAX_SAFE_INTEGER, what)), true);
    this.position += 8;
  }
  raw(bytes: Uint8Array) {
    this.bytes.set(bytes, this.position);
    this.position += bytes.byteLength;
  }
}

/**
 * DataView silently wraps what does not fit (a 100,000-byte name's length became 34,464 and unzip read
 * the rest of the header as a name): a value a field cannot hold refuses the ZIP instead.
 */
function fits(value: number, max: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > max) {
    throw new ArchiveError('invalid_entry', `a ZIP ${what} cannot hold ${value} (at most ${max})`);
  }
  return value;
}

const needs64 = (value: number) => value >= MAX32;

export function localHeaderSize(entry: Pick<ZipEntry, 'name' | 'size'>): number {
  return 30 + entry.name.byteLength + (needs64(entry.size) ? 20 : 0);
}

/** Local file header: in the ZIP64 case both sizes move to the extra field (4.5.3). */
export function encodeLocalHeader(entry: ZipEntry): Uint8Array {
  const big = needs64(entry.size);
  const out = new Writer(localHeaderSize(entry));
  out.u32(0x04034b50);
  out.u16(big ? VERSION_ZIP64 : VERSION_PLAIN);
  out.u16(FLAG_UTF8);
  out.u16(0); // stored
  out.u16(DOS_TIME);
  out.u16(DOS_DATE);
  out.u32(entry.crc);
  out.u32(big ? MAX32 : entry.size);
  out.u32(big ? MAX32 : entry.size);
  out.u16(entry.name.byteLength, 'name length');
  out.u16(big ? 20 : 0);
  out.raw(entry.name);
  if (big) {
    out.u16(0x0001);
    out.u16(16);
    out.u64(entry.size);
    out.u64(entry.size);
  }
  return out.bytes;
}

function centralExtraSize(entry: ZipEntry): number {
  const fields = (needs64(entry.size) ? 2 : 0) + (needs64(entry.offset) ? 1 : 0);
  return fields === 0 ? 0 : 4 + fields * 8;
}

export function centralHeaderSize(entry: ZipEntry): number {
  return 46 + entry.name.byteLength + centralExtraSize(entry);
}

/** Central directory header; the ZIP64 extra holds only the fields whose 32-bit slot is 0xFFFFFFFF. */
export function encodeCentralHeader(entry: ZipEntry): Uint8Array {
  const bigSize = needs64(entry.size);
  const bigOffset = needs64(entry.offset);
  const extra = centralExtraSize(entry);
  const out = new Writer(centralHeaderSize(entry));
  out.u32(0x02014b50);
  out.u16(VERSION_MADE_BY_UNIX);
  out.u16(extra > 0 ? VERSION_ZIP64 : VERSION_PLAIN);
  out.u16(FLAG_UTF8);
  out.u16(0);
  out.u16(DOS_TIME);
  out.u16(DOS_DATE);
  out.u32(entry.crc);
  out.u32(bigSize ? MAX32 : entry.size);
  out.u32(bigSize ? MAX32 : entry.size);
  out.u16(entry.name.byteLength, 'name length');
  out.u16(extra, 'extra field length');
  out.u16(0); // comment length
  out.u16(0); // disk number
  out.u16(0); // internal attributes
  out.u32(entry.mode * 0x10000 + ((entry.mode & 0o170000) === 0o040000 ? MSDOS_DIRECTORY : 0));
  out.u32(bigOffset ? MAX32 : entry.offset);
  out.raw(entry.name);
  if (extra > 0) {
    out.u16(0x0001);
    out.u16(extra - 4);
    if (bigSize) {
      out.u64(entry.size);
      out.u64(entry.size);
    }
    if (bigOffset) out.u64(entry.offset);
  }
  return out.bytes;
}

/** End of central directory, preceded by the ZIP64 record and locator when something overflows. */
export function encodeEnd(count: number, directoryOffset: number, directorySize: number): Uint8Array {
  const zip64 = count >= MAX16 || needs64(directoryOffset) || needs64(directorySize);
  const out = new Writer((zip64 ? 56 + 20 : 0) + 22);
  if (zip64) {
    const recordOffset = directoryOffset + directorySize;
    out.u32(0x06064b50);
    out.u64(44); // size of the rest of this record
    out.u16(VERSION_MADE_BY_UNIX);
    out.u16(VERSION_ZIP64);
    out.u32(0);
    out.u32(0);
    out.u64(count);
    out.u64(count);
    out.u64(directorySize);
    out.u64(directoryOffset);
    out.u32(0x07064b50);
    out.u32(0);
    out.u64(recordOffset);
    out.u32(1);
  }
  out.u32(0x06054b50);
  out.u16(0);
  out.u16(0);
  out.u16(zip64 ? MAX16 : count);
  out.u16(zip64 ? MAX16 : count);
  out.u32(zip64 ? MAX32 : directorySize);
  out.u32(zip64 ? MAX32 : directoryOffset);
  out.u16(0);
  return out.bytes;
}
