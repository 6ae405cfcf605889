import { and, count, eq } from 'drizzle-orm';
import {
  contentImagePath,
  createContentImageInput,
  finalizeContentImageInput,
  maxContentImagePixels,
  maxContentImageSide,
  unpaidPixelsMessage,
  type CreatedContentImage,
  type FinalizedContentImage,
} from '../../../shared/schemas/content-images.ts';
import type { PartDescriptor } from '../../../shared/schemas/packages.ts';
import type { Executor } from '../../db/client.ts';
import { newId } from '../../db/ids.ts';
import { contentImages } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';
import { hashToken } from '../../crypto/index.ts';
import { streamParts } from '../../part-uploads/part-stream.ts';
import { parsePartQuery } from '../../part-uploads/part-query.ts';
import { newUploadToken, verifyUploadToken } from '../../part-uploads/upload-token.ts';
import { verifyingStream } from '../../part-uploads/verifying-stream.ts';
import type { Actor } from '../auth/actor.ts';
import { loadProjectAccess, requireAction, type ProjectAccess } from '../projects/access.ts';
import { contentImageOriginalKey, contentImagePartKey, contentImagePrefix, contentImageSizeKey } from './content-image-keys.ts';
import { withImageBlobDeleteLock } from './blob-delete-lock.ts';
import { imageLibraryUnavailable, imageWorkOf, requireImageLibrary, tooMuchMemory, withinWait, workerStopped } from './image-worker/image-work.ts';
import type { FinalizeMade } from './image-worker/protocol.ts';

export type ContentImageRow = typeof contentImages.$inferSelect;

const notFoundImage = () => notFound('content image');
const expiredToken = 'The upload token expired: create the image again';

/** Part PUTs go to `{appUrl}/api/uploads/content-images/{id}?token&part=0&hash`: the token authorises them. */
function contentImageUploadUrl(appUrl: string, id: string): string {
  return `${appUrl}/api/uploads/content-images/${id}`;
}

/** The absolute URL of one size (the app's origin: PUBLIC_URL, else the request's). */
function contentImageUrl(appUrl: string, id: string, width: number): string {
  return `${appUrl}${contentImagePath(id, width)}`;
}

async function findContentImage(db: Executor, id: string, options: { lock?: boolean } = {}): Promise<ContentImageRow | undefined> {
  const query = db.select().from(contentImages).where(eq(contentImages.id, id));
  const [row] = options.lock ? await query.for('update') : await query;
  return row;
}

/** The finalize reply: `url` is the largest size (the image's own width). */
export function describeContentImage(row: Pick<ContentImageRow, 'id' | 'widths' | 'width' | 'height' | 'scale'>, appUrl: string): FinalizedContentImage {
  const largest = row.widths.at(-1) ?? row.width ?? 0;
  return { id: row.id, url: contentImageUrl(appUrl, row.id, largest), width: row.width ?? 0, height: row.height ?? 0, scale: row.scale };
}

/**
 * Who may add images: whoever may edit a description, the project's (patchProject) or a version's
 * (patchVersion): developers, admins and the owner. Others get the action's own refusal.
 */
function requireContentEditor(access: ProjectAccess): void {
  if (access.userPossibleActions.includes('patchProject') || access.userPossibleActions.includes('patchVersion')) return;
  requireAction(access, 'patchVersion');
}

/**
 * POST .../content/images {size, width, height, scale} (spec §4 image paste flow): an image record in
 * 'uploading' with a fresh upload token (only its SHA-256 kept; valid UPLOAD_HOURS) for part 0.
 * Declared pixels over maxContentImagePixels, or more than the declared size pays for
 * (unpaidPixelsMessage), are bad_param at once; a project holding
 * QUOTA_CONTENT_IMAGES images (uploads under way included) is limit_exceeded. not_supported when the
 * image library cannot load, before anything is sent.
 */
export async function createContentImage(deps: Deps, actor: Actor, projectId: string, rawInput: unknown, appUrl: string): Promise<CreatedContentImage> {
  const input = createContentImageInput.parse(rawInput);
  const id = newId();
  const token = newUploadToken();
  await deps.db.transaction(async (tx) => {
    // The project row lock serialises creates of one project, so the count below holds.
    const access = await loadProjectAccess({ db: tx }, actor, projectId, { lock: true });
    requireContentEditor(access);
    if (input.width * input.height > maxContentImagePixels) {
      throw new AppError('bad_param', `The image has too many pixels: ${input.width}×${input.height}, at most ${maxContentImagePixels.toLocaleString('en')} pixels and ${maxContentImageSide} per side`, {
        maxPixels: maxContentImagePixels,
      });
    }
    const unpaid = unpaidPixelsMessage(input.width, input.height, input.size);
    if (unpaid) throw new AppError('bad_param', unpaid, { width: input.width, height: input.height, size: input.size });
    await requireImageLibrary(deps);
    const limit = deps.config.contentImages.maxPerProject;
    if (limit > 0) {
      const [held] = await tx.select({ n: count() }).from(contentImages).where(eq(contentImages.projectId, projectId));
      if ((held?.n ?? 0) >= limit) {
        throw new AppError(
          'limit_exceeded',
          `This project holds as many images as it may (${limit}); images no description uses are removed after ${Math.round(deps.config.contentImages.graceMs / 3_600_000)} hours`,
          { limit },
        );
      }
    }
    await tx.insert(contentImages).values({
      id,
      projectId,
      createdBy: actor.kind === 'user' ? actor.userId : null,
      declaredSize: input.size,
      declaredWidth: input.width,
      declaredHeight: input.height,
      scale: input.scale,
      uploadTokenHash: hashToken(token),
      uploadExpiresAt: new Date(Date.now() + deps.config.uploads.tokenHours * 3_600_000),
    });
  });
  return { id, uploadInfo: { token, uploadUrl: contentImageUploadUrl(appUrl, id), partSize: input.size, partHashAlgorithm: 'sha1' } };
}

const tokenOf = (row: ContentImageRow) => ({ tokenHash: row.uploadTokenHash, expiresAt: row.uploadExpiresAt });

/** An image whose finalize refused its bytes: every later call says why. */
function refusedAlready(row: ContentImageRow): AppError {
  return new AppError('bad_param', `${row.error ?? 'The image was refused'}. Create the image again`);
}

/**
 * PUT /api/uploads/content-images/{id}?token&part=0&hash: the part protocol packages use too
 * (part-uploads/: same query, token rule, streaming SHA-1 check and part descriptor reply) for the
 * image's only part. A body longer than the declared size, or whose SHA-1 differs, stores nothing
 * (bad_param); an image past 'uploading' is already_finalized. Sending part 0 again replaces it.
 */
export async function uploadContentImagePart(deps: Deps, imageId: string, rawQuery: unknown, body: ReadableStream<Uint8Array> | null): Promise<PartDescriptor> {
  const query = parsePartQuery(rawQuery);
  const row = await findContentImage(deps.db, imageId);
  if (!row) throw notFoundImage();
  verifyUploadToken(tokenOf(row), query.token, { expired: expiredToken });
  if (row.status === 'errored') throw refusedAlready(row);
  if (row.status !== 'uploading') throw new AppError('already_finalized', 'The content image is already finalized');
  if (query.part !== 0) throw new AppError('bad_param', 'Invalid `part`: a content image is sent as one part, part 0');
  const key = contentImagePartKey(imageId, 0);
  let size = -1;
  await deps.storage.put(key, verifyingStream(body ?? new Blob([]).stream(), row.declaredSize, query.hash, (n) => (size = n)));
  if (size < 0) throw new AppError('bad_param', 'Invalid `hash`');
  const updated = await deps.db
    .update(contentImages)
    .set({ partSha1: query.hash, partSize: size })
    .where(and(eq(contentImages.id, imageId), eq(contentImages.status, 'uploading')))
    .returning({ id: contentImages.id });
  // A finalize that won meanwhile deleted the part already; this one would be an orphan.
  if (updated.length === 0) {
    await deps.storage.delete(key);
    throw new AppError('already_finalized', 'The content image is already finalized');
  }
  return { part: 0, hash: query.hash, size };
}

/**
 * Every blob under the image's prefix (a finalize that lost its row, the collector), deleted under the
 * chunk-store lock (blob-delete-lock.ts); 0 when a backup holds it: the storage sweep removes them later.
 */
export async function deleteContentImageBlobs(deps: Pick<Deps, 'storage' | 'db'>, imageId: string): Promise<number> {
  const keys: string[] = [];
  for await (const item of deps.storage.list(contentImagePrefix(imageId))) keys.push(item.key);
  if (keys.length === 0) return 0;
  const deleted = await withImageBlobDeleteLock(deps, async () => {
    for (const key of keys) await deps.storage.delete(key);
    return keys.length;
  });
  return deleted ?? 0;
}

async function readPart(deps: Deps, imageId: string, part: PartDescriptor): Promise<Uint8Array> {
  try {
    return new Uint8Array(await new Response(streamParts(deps.storage, imageId, [part], contentImagePartKey)).arrayBuffer());
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') throw new AppError('bad_param', 'Invalid `parts`: part 0 is not stored any more; upload it again');
    throw error;
  }
}

/**
 * PUT .../content/images/{image}/finalize {token, parts} (authorised by the upload token):
 * part 0 as uploaded (same hash and size, the declared size) is read back, re-hashed, checked and
 * decoded (encode.ts decodeUpload: not an image, too many pixels or damaged data is bad_param, and the
 * image is then 'errored'), oriented and stripped of metadata; the normalised original and every size
 * of contentImageWidths(width) in AVIF, WebP and JPEG are stored, then one UPDATE makes it 'ready' and
 * the part is deleted. Everything before that UPDATE only writes the image's own keys, so a crash or a
 * racing finalize leaves nothing another call trips on (the collector or the storage sweep removes it).
 * Another project's image is not_found; a finished one already_finalized (details: the image).
 * The pixels are worked on in the image worker process, in the image's owner's turn (image-work.ts):
 * past IMAGE_FINALIZE_WAIT_SECONDS the reply is timeout while the image stays queued (finalize again
 * joins it); the worker passing its memory cap refuses the image (bad_param, 'errored'); the worker
 * ending otherwise is timeout, the image left 'uploading' to be finalized again.
 */
export async function finalizeContentImage(deps: Deps, projectId: string, imageId: string, rawInput: unknown, appUrl: string): Promise<FinalizedContentImage> {
  const input = finalizeContentImageInput.parse(rawInput);
  const row = await findContentImage(deps.db, imageId);
  if (!row || row.projectId !== projectId) throw notFoundImage();
  verifyUploadToken(tokenOf(row), input.token, { allowExpired: row.status !== 'uploading', expired: expiredToken });
  if (row.status === 'ready') throw new AppError('already_finalized', 'The content image is already finalized', describeContentImage(row, appUrl));
  if (row.status === 'errored') throw refusedAlready(row);
  const part = { ...input.parts[0]!, hash: input.parts[0]!.hash.toLowerCase() };
  if (part.part !== 0) throw new AppError('bad_param', `Invalid \`parts\`: expected part 0, got ${part.part}`);
  if (part.size !== row.declaredSize) throw new AppError('bad_param', `Invalid \`parts\`: they hold ${part.size} bytes, the image declared ${row.declaredSize}`);
  if (row.partSha1 !== part.hash || row.partSize !== part.size) throw new AppError('bad_param', 'Invalid `parts`: part 0 was not uploaded with this hash and size');
  // In its owner's turn (image-work.ts): the user who created it, else its project (a deploy key's).
  const { queue } = imageWorkOf(deps);
  const processing = queue.run({ key: `finalize:${imageId}`, owner: row.createdBy ?? `project:${projectId}`, work: () => processUpload(deps, imageId, part, appUrl) });
  return describeContentImage(await withinWait(deps, processing), appUrl);
}

/**
 * Finalize's work in the image worker: part 0 read back and sent there, every encoding it hands back
 * stored under the image's keys, then the row made 'ready' and the part deleted.
 */
async function processUpload(deps: Deps, imageId: string, part: PartDescriptor, appUrl: string): Promise<ContentImageRow> {
  const bytes = await readPart(deps, imageId, part);
  const end = await imageWorkOf(deps).worker.run({ kind: 'finalize', bytes }, async (output, encoded) => {
    await deps.storage.put(output.kind === 'original' ? contentImageOriginalKey(imageId) : contentImageSizeKey(imageId, output.width, output.format), encoded);
  });
  if (end.type === 'refused' || end.type === 'memory') {
    const message = end.type === 'refused' ? end.message : tooMuchMemory(deps);
    await refuse(deps, imageId, message);
    throw new AppError('bad_param', message, end.type === 'refused' ? end.details : undefined);
  }
  if (end.type === 'unavailable') throw imageLibraryUnavailable(end.reason);
  if (end.type === 'stopped') throw workerStopped();
  if (end.type === 'failed') throw new Error(`image worker: ${end.message}`, { cause: end.cause });
  const made = end.made as FinalizeMade;

  const [ready] = await deps.db
    .update(contentImages)
    .set({ status: 'ready', ...made, finalizedAt: new Date(), encodedAt: new Date(), error: null })
    .where(and(eq(contentImages.id, imageId), eq(contentImages.status, 'uploading')))
    .returning();
  if (!ready) {
    const now = await findContentImage(deps.db, imageId);
    if (!now) {
      // Collected (or its project deleted) meanwhile: what this call stored belongs to nobody.
      await deleteContentImageBlobs(deps, imageId);
      throw notFoundImage();
    }
    throw new AppError('already_finalized', 'The content image is already finalized', now.status === 'ready' ? describeContentImage(now, appUrl) : undefined);
  }
  await deps.storage.delete(contentImagePartKey(imageId, 0)).catch(() => undefined);
  return ready;
}

/** Finalize refused the bytes: the image is 'errored' with the reason, its part deleted (nothing can use it). */
async function refuse(deps: Deps, imageId: string, reason: string): Promise<void> {
  const updated = await deps.db
    .update(contentImages)
    .set({ status: 'errored', error: reason.replace(/[.\s]+$/, ''), partSha1: null, partSize: null })
    .where(and(eq(contentImages.id, imageId), eq(contentImages.status, 'uploading')))
    .returning({ id: contentImages.id });
  if (updated.length > 0) await deps.storage.delete(contentImagePartKey(imageId, 0)).catch(() => undefined);
}
