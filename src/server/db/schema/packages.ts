import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgTable, primaryKey, smallint, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { projects, versions } from './projects.ts';

const time = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Package lifecycle: 'uploading' (parts arrive) → finalize → 'ready', or for a patch 'finalized'
 * (its own chunks are stored, the base's still to be checked) → resolve job: 'resolving' → 'ready'.
 * 'errored' is a resolve that failed for good (error says why). Only 'ready' packages join versions.
 */
export const packageStatuses = ['uploading', 'finalized', 'resolving', 'ready', 'errored'] as const;
export type PackageStatus = (typeof packageStatuses)[number];

export const packages = pgTable(
  'packages',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** null: no title was given; the API shows one derived from the version and tags (packages/records/describe-package.ts). */
    title: text('title'),
    tags: jsonb('tags').$type<string[]>().notNull().default([]),
    entrypoint: jsonb('entrypoint').$type<string[] | null>(),
    /** Bytes of the archive the client announced it uploads. */
    declaredSize: bigint('declared_size', { mode: 'number' }).notNull(),
    basePackageId: text('base_package_id').references((): any => packages.id, { onDelete: 'set null' }),
    status: text('status', { enum: packageStatuses }).notNull().default('uploading'),
    /** SHA-256 of the upload token; the token itself is shown once, in uploadInfo. */
    uploadTokenHash: text('upload_token_hash'),
    uploadExpiresAt: time('upload_expires_at'),
    /** Hex SHA-256 of the encoded index (the archive's index hash). */
    indexHash: text('index_hash'),
    /** Sum of the file sizes. */
    totalSize: bigint('total_size', { mode: 'number' }),
    /** Sum of compressedSize of its distinct chunks. */
    storedSize: bigint('stored_size', { mode: 'number' }),
    /** 0 none, 1 zstd: how its chunks are stored (stored_chunks.compression; legacy chunk blobs: the chunks/{raw|zstd}/ folder). */
    compression: smallint('compression'),
    chunkCount: integer('chunk_count'),
    error: text('error'),
    /** The part list a successful finalize used (a repeat with the same list is idempotent). */
    finalizedParts: jsonb('finalized_parts').$type<{ part: number; hash: string; size: number }[]>(),
    createdAt: time('created_at').notNull().defaultNow(),
    finalizedAt: time('finalized_at'),
    /**
     * The last time anyone touched the package: created, finalized or resolved, renamed or retagged, or
     * left a version (deleted with it). The orphan collector counts ORPHAN_PACKAGE_DAYS from it.
     */
    touchedAt: time('touched_at').notNull().defaultNow(),
  },
  (table) => [
    index('packages_project_created').on(table.projectId, table.createdAt),
    index('packages_base').on(table.basePackageId),
    check('packages_status', sql`${table.status} in ('uploading', 'finalized', 'resolving', 'ready', 'errored')`),
    check('packages_declared_size', sql`${table.declaredSize} >= 0`),
  ],
);

/** The distinct chunks a ready package references: space, patch size and chunk garbage collection. */
export const packageChunks = pgTable(
  'package_chunks',
  {
    packageId: text('package_id')
      .notNull()
      .references(() => packages.id, { onDelete: 'cascade' }),
    hash: text('hash').notNull(),
    compressedSize: integer('compressed_size').notNull(),
    size: integer('size').notNull(),
  },
  (table) => [primaryKey({ columns: [table.packageId, table.hash] }), index('package_chunks_hash').on(table.hash)],
);

/** Parts received for a package being uploaded (blob `uploads/{packageId}/{part}`). */
export const uploadParts = pgTable(
  'upload_parts',
  {
    packageId: text('package_id')
      .notNull()
      .references(() => packages.id, { onDelete: 'cascade' }),
    part: integer('part').notNull(),
    sha1: text('sha1').notNull(),
    size: integer('size').notNull(),
    createdAt: time('created_at').notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.packageId, table.part] })],
);

/**
 * The packages of a version, in order. The package FK is NO ACTION (checked at the end of the
 * statement, so a project delete cascading to both tables passes); a package a version lists cannot be
 * deleted alone (the service answers not_empty first).
 */
export const versionPackages = pgTable(
  'version_packages',
  {
    versionId: text('version_id')
      .notNull()
      .references(() => versions.id, { onDelete: 'cascade' }),
    packageId: text('package_id')
      .notNull()
      .references(() => packages.id, { onDelete: 'no action' }),
    position: integer('position').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.versionId, table.position] }),
    uniqueIndex('version_packages_version_package').on(table.versionId, table.packageId),
    index('version_packages_package').on(table.packageId),
  ],
);
