import { and, eq, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { contentImages } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { contentImagesPrefix, parseContentImageKey } from './content-image-keys.ts';
import { withImageBlobDeleteLock } from './blob-delete-lock.ts';
import { deleteContentImageBlobs } from './content-images.service.ts';

/**
 * Which images are in use. A description names its images by id: the project description's `images`
 * list (PUT .../description), and the /content-images/{id}/ URLs in the markdown of the project's
 * description and of its versions' descriptions (which have no list). Only the image's own project
 * counts: another project's markdown linking the URL does not keep it. The project's cover and
 * screenshots (project_media, PUT .../media) use theirs too.
 */
const column = (name: string) => sql.raw(`"content_images"."${name}"`);
const referenced: SQL = sql`(exists (select 1 from projects p where p.id = ${column('project_id')} and (
    p.description_images @> jsonb_build_array(jsonb_build_object('id', ${column('id')}))
    or strpos(p.description_markdown, '/content-images/' || ${column('id')} || '/') > 0))
  or exists (select 1 from versions v where v.project_id = ${column('project_id')}
    and strpos(v.description, '/content-images/' || ${column('id')} || '/') > 0)
  or exists (select 1 from project_media m where m.image_id = ${column('id')}))`;

/** An upload nobody finished is collected this long after its token expired (a finalize may still run just before). */
const expiredUploadMarginMs = 60 * 60_000;
const batchSize = 200;

export type ContentImageCollection = { referenced: number; collected: number; blobs: number };

/**
 * The 'content_images_collect' job's work (hourly), crash-safe in this order:
 * 1. images in use (a description references them, or they are a cover or screenshot) get
 *    last_referenced_at = now (their grace period restarts);
 * 2. rows are deleted in batches, each re-checking in the DELETE itself that it is still garbage: ready
 *    images unreferenced for CONTENT_IMAGE_GRACE_HOURS (counted from the last time one was referenced,
 *    else from finalize), refused ('errored') ones as old, uploads whose token expired an hour ago;
 * 3. then their blobs, under the chunk-store lock (blob-delete-lock.ts). A crash between 2 and 3, or a
 *    backup holding that lock, leaves blobs without a row, which the storage sweep removes
 *    (sweepContentImageStorage). `now` may be moved by tests.
 */
export async function collectContentImages(deps: Deps, now = Date.now()): Promise<ContentImageCollection> {
  const at = new Date(now);
  const cutoff = new Date(now - deps.config.contentImages.graceMs);
  const touched = await deps.db
    .update(contentImages)
    .set({ lastReferencedAt: at })
    .where(and(eq(contentImages.status, 'ready'), or(isNull(contentImages.lastReferencedAt), lt(contentImages.lastReferencedAt, new Date(now - 60 * 60_000))), referenced))
    .returning({ id: contentImages.id });

  const garbage = or(
    // A Date inside sql`` is not mapped by a column: it goes as ISO text (postgres.js takes no Date there).
    and(eq(contentImages.status, 'ready'), sql`coalesce(${column('last_referenced_at')}, ${column('finalized_at')}, ${column('created_at')}) < ${cutoff.toISOString()}::timestamptz`, sql`not ${referenced}`),
    and(eq(contentImages.status, 'errored'), lt(contentImages.createdAt, cutoff)),
    and(eq(contentImages.status, 'uploading'), lt(contentImages.uploadExpiresAt, new Date(now - expiredUploadMarginMs))),
  );
  let collected = 0;
  let blobs = 0;
  for (;;) {
    const candidates = await deps.db.select({ id: contentImages.id }).from(contentImages).where(garbage).limit(batchSize);
    if (candidates.length === 0) break;
    const deleted = await deps.db
      .delete(contentImages)
      .where(and(inArray(contentImages.id, candidates.map((row) => row.id)), garbage))
      .returning({ id: contentImages.id });
    for (const row of deleted) blobs += await deleteContentImageBlobs(deps, row.id);
    collected += deleted.length;
    if (deleted.length === 0) break;
  }
  return { referenced: touched.length, collected, blobs };
}

/** Blobs changed within this long are left alone by the sweep (a finalize may be writing them). */
const sweepGraceMs = 60 * 60_000;

export type ContentImageStorageSweep = { orphans: number; parts: number; stale: number };

/**
 * The content_images_storage_sweep job's work (storage-sweep.job.ts), from storage itself: blobs under content-images/
 * of images without a row (a collection or project delete that died before removing them, an optimise
 * run writing after a collection), upload parts of images past 'uploading' (a finalize that died after
 * its commit), and sizes a ready image does not list. What a ready image lists, and everything of an
 * image still uploading, stays; so does anything changed within the last hour.
 */
export async function sweepContentImageStorage(deps: Deps, now = Date.now()): Promise<ContentImageStorageSweep> {
  const before = now - sweepGraceMs;
  const byImage = new Map<string, string[]>();
  for await (const item of deps.storage.list(contentImagesPrefix)) {
    const id = item.key.slice(contentImagesPrefix.length).split('/')[0]!;
    if (!byImage.has(id)) byImage.set(id, []);
    byImage.get(id)!.push(item.key);
  }
  const rows = new Map<string, { status: string; variants: Record<string, Record<string, number>> }>();
  const ids = [...byImage.keys()];
  for (let start = 0; start < ids.length; start += 500) {
    const found = await deps.db
      .select({ id: contentImages.id, status: contentImages.status, variants: contentImages.variants })
      .from(contentImages)
      .where(inArray(contentImages.id, ids.slice(start, start + 500)));
    for (const row of found) rows.set(row.id, row);
  }
  const doomed: { key: string; kind: keyof ContentImageStorageSweep }[] = [];
  for (const [id, keys] of byImage) {
    const row = rows.get(id);
    for (const key of keys) {
      const parsed = parseContentImageKey(key);
      let kind: keyof ContentImageStorageSweep | undefined;
      if (!row) kind = 'orphans';
      else if (row.status === 'uploading') kind = undefined;
      else if (!parsed || parsed.blob === 'part') kind = 'parts';
      else if (row.status === 'errored') kind = 'stale';
      else if (parsed.blob === 'size' && row.variants[String(parsed.width)]?.[parsed.format!] === undefined) kind = 'stale';
      if (!kind) continue;
      const stat = await deps.storage.stat(key);
      if (!stat || stat.modified.getTime() >= before) continue;
      doomed.push({ key, kind });
    }
  }
  // Deleted under the chunk-store lock (blob-delete-lock.ts), a batch at a time; a batch a backup holds
  // back waits for the next sweep.
  const result: ContentImageStorageSweep = { orphans: 0, parts: 0, stale: 0 };
  for (let start = 0; start < doomed.length; start += batchSize) {
    const batch = doomed.slice(start, start + batchSize);
    const done = await withImageBlobDeleteLock(deps, async () => {
      for (const { key } of batch) await deps.storage.delete(key);
      return true;
    });
    if (!done) break;
    for (const { kind } of batch) result[kind]++;
  }
  return result;
}
