import { sql, type SQL } from 'drizzle-orm';
import type { CompressionAlgorithm } from '../../../../shared/archive/index.ts';
import { eachLimited } from '../../../../shared/limiter.ts';
import type { Database } from '../../../db/client.ts';
import type { BlobStore } from '../../../storage/index.ts';
import { chunkIdentity, chunkKey } from '../blob-keys.ts';
import { rowsOfResult, unnestRows } from '../../../db/sql-rows.ts';

/**
 * Which chunks the store holds, in batches of lookups (never a round trip per chunk): a stored_chunks
 * row (in a pack), or a legacy blob of its own (blob-keys.ts). Legacy blobs are only ever written by
 * servers from before packs, always for chunks some package listed (package_chunks), so only chunks a
 * package lists and no row covers are stat'ed; a legacy leftover no package lists is simply stored
 * again, in a pack.
 */
export type ChunkId = { hash: string; compressedSize: number };
export type StoredChunk = { packId: string; offset: number; crc32: number };

/** Chunks per statement: each is two array parameters, so statements stay one round trip for a GiB or ten. */
const lookupBatch = 20_000;

function* batches<T>(items: readonly T[]): Generator<T[]> {
  for (let start = 0; start < items.length; start += lookupBatch) yield items.slice(start, start + lookupBatch);
}

/** `chunks` as a relation c(hash, compressed_size). */
function chunkList(chunks: readonly ChunkId[]): SQL {
  return unnestRows('c', [
    ['hash', 'text', chunks.map((chunk) => chunk.hash)],
    ['compressed_size', 'integer', chunks.map((chunk) => chunk.compressedSize)],
  ]);
}

/** The stored_chunks rows of `chunks`, by chunkIdentity. */
export async function findStoredChunks(db: Pick<Database, 'execute'>, compression: CompressionAlgorithm, chunks: readonly ChunkId[]): Promise<Map<string, StoredChunk>> {
  const found = new Map<string, StoredChunk>();
  for (const batch of batches(chunks)) {
    const rows = rowsOfResult<{ hash: string; compressed_size: number; pack_id: string; offset: string | number; crc32: number }>(
      await db.execute(sql`select s.hash, s.compressed_size, s.pack_id, s."offset", s.crc32 from ${chunkList(batch)}
        join stored_chunks s on s.compression = ${compression} and s.hash = c.hash and s.compressed_size = c.compressed_size`),
    );
    for (const row of rows) {
      found.set(chunkIdentity(compression, row.hash, Number(row.compressed_size)), { packId: row.pack_id, offset: Number(row.offset), crc32: Number(row.crc32) >>> 0 });
    }
  }
  return found;
}

/** Chunks of `chunks` some package of this compression lists (same stored size), by chunkIdentity. */
async function findListedChunks(db: Pick<Database, 'execute'>, compression: CompressionAlgorithm, chunks: readonly ChunkId[]): Promise<Set<string>> {
  const listed = new Set<string>();
  for (const batch of batches(chunks)) {
    const rows = rowsOfResult<{ hash: string; compressed_size: number }>(
      await db.execute(sql`select c.hash, c.compressed_size from ${chunkList(batch)} where exists (
        select 1 from package_chunks pc join packages p on p.id = pc.package_id
        where pc.hash = c.hash and pc.compressed_size = c.compressed_size and p.compression = ${compression})`),
    );
    for (const row of rows) listed.add(chunkIdentity(compression, row.hash, Number(row.compressed_size)));
  }
  return listed;
}

/** Which of `chunks` (none of them with a stored_chunks row) are legacy blobs still there, by chunkIdentity. */
async function findLegacyChunks(db: Pick<Database, 'execute'>, storage: BlobStore, compression: CompressionAlgorithm, chunks: readonly ChunkId[]): Promise<Set<string>> {
  const listed = await findListedChunks(db, compression, chunks);
  const legacy = new Set<string>();
  const candidates = chunks.filter((chunk) => listed.has(chunkIdentity(compression, chunk.hash, chunk.compressedSize)));
  await eachLimited(candidates, 16, async (chunk) => {
    if (await storage.stat(chunkKey(compression, chunk.hash, chunk.compressedSize))) legacy.add(chunkIdentity(compression, chunk.hash, chunk.compressedSize));
  });
  return legacy;
}

/** Where the store holds each chunk it holds: rows, and legacy blobs among the rest. */
export async function findChunksInStore(db: Pick<Database, 'execute'>, storage: BlobStore, compression: CompressionAlgorithm, chunks: readonly ChunkId[]): Promise<{ rows: Map<string, StoredChunk>; legacy: Set<string> }> {
  const rows = await findStoredChunks(db, compression, chunks);
  const rest = chunks.filter((chunk) => !rows.has(chunkIdentity(compression, chunk.hash, chunk.compressedSize)));
  return { rows, legacy: rest.length > 0 ? await findLegacyChunks(db, storage, compression, rest) : new Set() };
}

/** The first of `chunks` the store does not hold (no row, no legacy blob), or undefined. */
export async function findMissingChunk(db: Pick<Database, 'execute'>, storage: BlobStore, compression: CompressionAlgorithm, chunks: readonly ChunkId[]): Promise<ChunkId | undefined> {
  const { rows, legacy } = await findChunksInStore(db, storage, compression, chunks);
  return chunks.find((chunk) => {
    const identity = chunkIdentity(compression, chunk.hash, chunk.compressedSize);
    return !rows.has(identity) && !legacy.has(identity);
  });
}
