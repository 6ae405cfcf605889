import { sql } from 'drizzle-orm';
import { check, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
import { projects } from './projects.ts';

const time = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Content image lifecycle (spec §4 image paste flow): 'uploading' (part 0 arrives under the upload
 * token) → finalize decodes, checks and encodes it → 'ready'; 'errored': finalize refused its bytes (not
 * an image, too many pixels, damaged), `error` says why. Collected when no description references it.
 */
export const contentImageStatuses = ['uploading', 'ready', 'errored'] as const;
export type ContentImageStatus = (typeof contentImageStatuses)[number];

/** Bytes of each encoded size: width → format → bytes (a format missing for a width was not made). */
export type ContentImageVariants = Record<string, Partial<Record<'avif' | 'webp' | 'jpeg', number>>>;

/**
 * An image pasted into a project's markdown (spec §3 Markdown content, content image upload info).
 * Its blobs live under `content-images/{id}/` (domains/content-images/content-image-keys.ts).
 */
export const contentImages = pgTable(
  'content_images',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    /** What the client announced: bytes of part 0, pixels, and the device pixel ratio × 100 (spec §9). */
    declaredSize: integer('declared_size').notNull(),
    declaredWidth: integer('declared_width').notNull(),
    declaredHeight: integer('declared_height').notNull(),
    scale: integer('scale').notNull().default(100),
    status: text('status', { enum: contentImageStatuses }).notNull().default('uploading'),
    /** SHA-256 of the upload token (shown once, in uploadInfo) and when it stops working. */
    uploadTokenHash: text('upload_token_hash'),
    uploadExpiresAt: time('upload_expires_at'),
    /** Part 0 as received (blob content-images/{id}/part-0): its SHA-1 and bytes. */
    partSha1: text('part_sha1'),
    partSize: integer('part_size'),
    /** The decoded image's size after its EXIF orientation, and its source format (jpeg, png, ...). */
    width: integer('width'),
    height: integer('height'),
    sourceFormat: text('source_format'),
    /** The widths made (contentImageWidths(width)), ascending, and the bytes of each encoding. */
    widths: jsonb('widths').$type<number[]>().notNull().default([]),
    variants: jsonb('variants').$type<ContentImageVariants>().notNull().default({}),
    error: text('error'),
    createdAt: time('created_at').notNull().defaultNow(),
    finalizedAt: time('finalized_at'),
    /** Last time the sizes were encoded (finalize, then each optimise job). */
    encodedAt: time('encoded_at'),
    /** Last time the collector found a description referencing it; its grace period counts from here. */
    lastReferencedAt: time('last_referenced_at'),
  },
  (table) => [
    index('content_images_project').on(table.projectId, table.createdAt),
    index('content_images_status').on(table.status, table.id),
    // The target of project_media's (project, image) key: an image can only be its own project's media.
    unique('content_images_project_id').on(table.projectId, table.id),
    check('content_images_status', sql`${table.status} in ('uploading', 'ready', 'errored')`),
    check('content_images_declared', sql`${table.declaredSize} > 0 and ${table.declaredWidth} > 0 and ${table.declaredHeight} > 0 and ${table.scale} > 0`),
  ],
);

export const projectMediaRoles = ['cover', 'screenshot'] as const;
export type ProjectMediaRole = (typeof projectMediaRoles)[number];

/**
 * A project's cover and screenshots for its store page (issue 19): one row per slot, the cover at
 * position 0, screenshots at 0, 1, ... in their order. The image must be the project's own (the key
 * (project_id, image_id) references content_images' (project_id, id)); an image that goes (collected,
 * which only happens once no slot uses it, or its project deleted) takes its slot with it, so a cover
 * never points at nothing. Every write NOTIFYs store_changed (migration 0011_project_media).
 */
export const projectMedia = pgTable(
  'project_media',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    role: text('role', { enum: projectMediaRoles }).notNull(),
    position: integer('position').notNull(),
    imageId: text('image_id').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.projectId, table.role, table.position] }),
    foreignKey({ name: 'project_media_image_fk', columns: [table.projectId, table.imageId], foreignColumns: [contentImages.projectId, contentImages.id] }).onDelete('cascade'),
    index('project_media_image').on(table.imageId),
    check('project_media_role', sql`${table.role} in ('cover', 'screenshot')`),
    check('project_media_position', sql`${table.position} >= 0 and (${table.role} <> 'cover' or ${table.position} = 0)`),
  ],
);
