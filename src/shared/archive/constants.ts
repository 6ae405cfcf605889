/** "CRT1": the trailing digit is the format version, so a future layout changes the magic. */
export const ARCHIVE_MAGIC = new Uint8Array([0x43, 0x52, 0x54, 0x31]);
export const INDEX_HASH_SIZE = 32;
export const CHUNK_HASH_SIZE = 32;
/** The index is written (and hashed) in buffers of this size (spec §9). */
export const INDEX_BUFFER_SIZE = 1024;
/** A directory must hold fewer entries than this (spec §9). */
export const MAX_DIRECTORY_ENTRIES = 1_048_576;
/** Nesting bound so hostile indexes cannot overflow the stack of recursive walks. */
export const MAX_DEPTH = 1024;
/** Longest name, in UTF-8 bytes (NAME_MAX of common file systems). */
export const MAX_NAME_BYTES = 255;
/** Longest whole path ('a/b/c', relative to the archive root) and symlink target, in UTF-8 bytes (PATH_MAX). */
export const MAX_PATH_BYTES = 4096;
/** Links a symlink's resolution may follow before it counts as a loop (Linux's MAXSYMLINKS). */
export const MAX_LINK_HOPS = 40;
/** Default reader limit on the declared index size (≈ 400 GiB of content at 64 KiB chunks). */
export const DEFAULT_MAX_INDEX_SIZE = 256 * 1024 * 1024;

export const CHUNKING_FIXED = 0;
export const CHUNKING_CONTENT_DEFINED = 1;
export const COMPRESSION_NONE = 0;
export const COMPRESSION_ZSTD = 1;

/** Content-defined chunking: no cut before MIN (those bytes are not even hashed), forced cut at MAX. */
export const MIN_CHUNK_SIZE = 16 * 1024;
export const MAX_CHUNK_SIZE = 256 * 1024;
/** Spec §9 "32768 mask": a cut where the top 15 bits of the gear hash are zero (probability 1/32768). */
export const BOUNDARY_MASK_MODULUS = 32768;
/**
 * Algorithm 0 cuts every file into pieces of this size, so reader memory stays bounded by one chunk.
 * @alias MAX_CHUNK_SIZE
 */
export const FIXED_CHUNK_SIZE = MAX_CHUNK_SIZE;
export const DEFAULT_ZSTD_LEVEL = 1;

export const MODE_EXECUTABLE = 1;
export const MODE_RESERVED = 2;
export const MODE_MASK = MODE_EXECUTABLE | MODE_RESERVED;

export const ENTRY_DIRECTORY = 0;
export const ENTRY_FILE = 1;
export const ENTRY_SYMLINK = 2;

export const FLAG_PATCH = 1;
