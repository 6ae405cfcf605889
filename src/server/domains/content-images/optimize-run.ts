import { and, asc, count, eq, gt } from 'drizzle-orm';
import { contentImageWidths, type OptimizeContentImagesOutput } from '../../../shared/schemas/content-images.ts';
import { contentImages } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import type { JobContext } from '../../jobs/define-job.ts';
import { contentImageOriginalKey, contentImageSizeKey } from './content-image-keys.ts';
import { deleteContentImageBlobs } from './content-images.service.ts';
import { decodeOriginal, encodeSizes, withImageSlot } from './encode.ts';
import { imageLibrary, type ImageLibrary } from './image-library.ts';

const batchSize = 50;
const imagesAtOnce = 2;

type ReadyImage = { id: string; widths: number[] };

/**
 * Re-encodes one ready image from its normalised original (never from a served size, so repeated runs
 * do not compound losses; an image that somehow lost its original is re-encoded from its largest JPEG).
 * Each size is replaced in place: a blob write is atomic, so a reader gets the old or the new bytes,
 * both valid at the same URL. An image collected meanwhile has the blobs written here removed again.
 */
export async function reencodeContentImage(deps: Pick<Deps, 'db' | 'storage'>, sharp: ImageLibrary, image: ReadyImage): Promise<void> {
  await withImageSlot(async () => {
    const largest = image.widths.at(-1);
    const source = await deps.storage.read(contentImageOriginalKey(image.id)).catch(async (error: unknown) => {
      if (largest === undefined) throw error;
      return deps.storage.read(contentImageSizeKey(image.id, largest, 'jpeg'));
    });
    const decoded = await decodeOriginal(sharp, source);
    const widths = contentImageWidths(decoded.width);
    const variants = await encodeSizes(sharp, decoded, widths, async (width, format, bytes) => {
      await deps.storage.put(contentImageSizeKey(image.id, width, format), bytes);
    });
    const updated = await deps.db
      .update(contentImages)
      .set({ widths, variants, encodedAt: new Date() })
      .where(and(eq(contentImages.id, image.id), eq(contentImages.status, 'ready')))
      .returning({ id: contentImages.id });
    if (updated.length === 0) await deleteContentImageBlobs(deps, image.id);
  });
}

/**
 * The 'content_images_optimize' job (POST /admin/maintenance/optimize-content-images): every ready
 * image, in id order, re-encoded with the current settings (encode.ts contentImageEncodings). Progress
 * is images done / images ready at the start (two images are worked on at a time); an image that fails
 * is logged and counted, not retried, and does not stop the others. Output: { images: re-encoded, failed }.
 */
export async function optimizeContentImages(deps: Deps, context: JobContext): Promise<OptimizeContentImagesOutput> {
  const sharp = await imageLibrary();
  const [ready] = await deps.db.select({ n: count() }).from(contentImages).where(eq(contentImages.status, 'ready'));
  const total = ready?.n ?? 0;
  await context.setStage('re-encoding', 0);
  await context.appendLog([`Re-encoding ${total} image${total === 1 ? '' : 's'}`]);
  let done = 0;
  let failed = 0;
  let after = '';
  let reporting = Promise.resolve();
  for (;;) {
    const rows = await deps.db
      .select({ id: contentImages.id, widths: contentImages.widths })
      .from(contentImages)
      .where(and(eq(contentImages.status, 'ready'), gt(contentImages.id, after)))
      .orderBy(asc(contentImages.id))
      .limit(batchSize);
    if (rows.length === 0) break;
    // Two images at a time: one image's encoders leave a core idle much of the time (measured: the
    // job ran at ≈ 0.9 of 2 cores one image at a time). withImageSlot bounds the whole process anyway.
    let next = 0;
    const lane = async () => {
      while (next < rows.length) {
        const row = rows[next++]!;
        context.assertHolds(); // the lease lost: the next attempt starts over
        try {
          await reencodeContentImage(deps, sharp, row);
        } catch (error) {
          failed++;
          await context.appendLog([`${row.id}: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300)}`]);
        }
        done++;
        // Images finalized after the count make done pass total: progress stays below 1 until the end.
        // Reported one after the other, so it never goes back.
        const progress = Math.min(0.99, done / Math.max(total, 1));
        reporting = reporting.then(() => context.setProgress(progress));
        await reporting;
      }
    };
    await Promise.all(Array.from({ length: imagesAtOnce }, lane));
    after = rows.at(-1)!.id;
  }
  await context.setStage('done', 1);
  await context.appendLog([`Re-encoded ${done - failed} image${done - failed === 1 ? '' : 's'}${failed > 0 ? `; ${failed} failed` : ''}`]);
  return { images: done - failed, failed };
}
