import { bigint, index, integer, pgTable, primaryKey, smallint, text, timestamp } from 'drizzle-orm/pg-core';

const time = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Pack blobs (`packs/{id}`, packages/blob-keys.ts): the stored bytes of many chunks back to back.
 * A row exists once the blob is complete. `retiredAt`: its live chunks were copied to another pack by a
 * repack; the blob stays for a grace period (downloads under way hold its locations), then the storage
 * sweep deletes row and blob.
 */
export const packs = pgTable('packs', {
  id: text('id').primaryKey(),
  /** Bytes of the blob, dead chunks included. */
  size: bigint('size', { mode: 'number' }).notNull(),
  createdAt: time('created_at').notNull().defaultNow(),
  retiredAt: time('retired_at'),
});

/**
 * Where each stored chunk lives: one row per chunk identity (blob-keys.ts: compression, hash of the raw
 * bytes, stored size; raw chunks have compressedSize = size), at `offset` in its pack. Chunks stored
 * before packs existed have no row and keep their own blob (`chunks/...`, the legacy layout).
 */
export const storedChunks = pgTable(
  'stored_chunks',
  {
    compression: smallint('compression').notNull(),
    hash: text('hash').notNull(),
    compressedSize: integer('compressed_size').notNull(),
    packId: text('pack_id')
      .notNull()
      .references(() => packs.id),
    offset: bigint('offset', { mode: 'number' }).notNull(),
    /** CRC-32 of the raw bytes as a signed 32-bit integer (`| 0`; read back with `>>> 0`): ZIP CRCs without reading the chunk. */
    crc32: integer('crc32').notNull(),
    createdAt: time('created_at').notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.compression, table.hash, table.compressedSize] }), index('stored_chunks_pack').on(table.packId)],
);
