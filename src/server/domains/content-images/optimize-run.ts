import { and, asc, count, eq, gt } from 'drizzle-orm';
import type { OptimizeContentImagesOutput } from '../../../shared/schemas/content-images.ts';
import { contentImages } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import type { JobContext } from '../../jobs/define-job.ts';
import { contentImageOriginalKey, contentImageSizeKey } from './content-image-keys.ts';
import { deleteContentImageBlobs } from './content-images.service.ts';
import { imageLibraryUnavailable, imageWorkOf, requireImageLibrary, tooMuchMemory, workerStopped } from './image-worker/image-work.ts';
import type { ReencodeMade } from './image-worker/protocol.ts';

const batchSize = 50;
/** Images handed to the queue at once: it works on them in the background lane, after users' images. */
const imagesAtOnce = 2;

type ReadyImage = { id: string; widths: number[] };

/**
 * Re-encodes one ready image from its normalised original (never from a served size, so repeated runs
 * do not compound losses; an image that somehow lost its original is re-encoded from its largest JPEG).
 * Each size is replaced in place: a blob write is atomic, so a reader gets the old or the new bytes,
 * both valid at the same URL. An image collected meanwhile has the blobs written here removed again.
 */
async function reencodeContentImage(deps: Pick<Deps, 'db' | 'storage' | 'config' | 'log'>, image: ReadyImage): Promise<void> {
  const { queue, worker } = imageWorkOf(deps);
  await queue.run({
    key: `reencode:${image.id}`,
    owner: 'content_images_optimize',
    background: true,
    work: async () => {
      const largest = image.widths.at(-1);
      const source = await deps.storage.read(contentImageOriginalKey(image.id)).catch(async (error: unknown) => {
        if (largest === undefined) throw error;
        return deps.storage.read(contentImageSizeKey(image.id, largest, 'jpeg'));
      });
      const end = await worker.run({ kind: 'reencode', bytes: source }, async (output, bytes) => {
        if (output.kind === 'size') await deps.storage.put(contentImageSizeKey(image.id, output.width, output.format), bytes);
      });
      if (end.type === 'memory') throw new Error(tooMuchMemory(deps));
      if (end.type === 'unavailable') throw imageLibraryUnavailable(end.reason);
      if (end.type === 'stopped') throw workerStopped();
      if (end.type !== 'done') throw new Error(end.message, { cause: end.type === 'failed' ? end.cause : undefined });
      const { widths, variants } = end.made as ReencodeMade;
      const updated = await deps.db
        .update(contentImages)
        .set({ widths, variants, encodedAt: new Date() })
        .where(and(eq(contentImages.id, image.id), eq(contentImages.status, 'ready')))
        .returning({ id: contentImages.id });
      if (updated.length === 0) await deleteContentImageBlobs(deps, image.id);
    },
  });
}

/**
 * The 'content_images_optimize' job (POST /admin/maintenance/optimize-content-images): every ready
 * image, in id order, re-encoded with the current settings (encode.ts contentImageEncodings). Progress
 * is images done / images ready at the start (worked on in the image worker, after users' images); an image that fails
 * is logged and counted, not retried, and does not stop the others. Output: { images: re-encoded, failed }.
 */
export async function optimizeContentImages(deps: Deps, context: JobContext): Promise<OptimizeContentImagesOutput> {
  await requireImageLibrary(deps);
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
    // Two images handed over at a time, so the next one is read while one is encoded; the queue
    // (IMAGE_WORKER_CONCURRENCY, users first) decides how many the worker really works on.
    let next = 0;
    const lane = async () => {
      while (next < rows.length) {
        const row = rows[next++]!;
        context.assertHolds(); // the lease lost: the next attempt starts over
        try {
          await reencodeContentImage(deps, row);
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
