import { uploadRetry, type RetryPolicy } from '../../shared/api/retry.ts';
import { routes } from '../../shared/api/routes.ts';
import { ApiError } from '../../shared/api/errors.ts';
import { finalizedContentImageSchema, maxContentImageBytes, maxContentImagePixels, maxContentImageSide, type FinalizedContentImage } from '../../shared/schemas/content-images.ts';
import { PART_UPLOAD_CONCURRENCY } from '../../shared/upload/constants.ts';
import { createLimiter } from '../../shared/limiter.ts';
import { sendPart } from '../../shared/upload/send-part.ts';
import { sha1Hex } from '../../shared/upload/sha1.ts';
import { api } from './api.ts';

/**
 * Images pasted or dropped into markdown content (spec §4 image paste flow, §5, §9), without React: the
 * file made into a JPEG in the browser, then the record, the bytes as part 0 and finalize, each tried as
 * spec §9 says (3 tries, 5 s apart) through the shared REST client and part sender.
 */

/** Why a pasted file was not sent: not an image the browser can read, or past the server's limits. */
export class ContentImageError extends Error {
  constructor(readonly reason: 'unreadable' | 'too_large') {
    super(reason === 'unreadable' ? 'the file is not an image this browser can read' : 'the image is too large');
    this.name = 'ContentImageError';
  }
}

/** JPEG quality of converted images: high enough that screenshots keep their text crisp. */
const jpegQuality = 0.9;

/** The image files among pasted or dropped files (spec §5: other files are left alone). */
export function imageFiles(files: FileList | readonly File[] | null | undefined): File[] {
  return Array.from(files ?? []).filter((file) => file.type.startsWith('image/'));
}

/** Spec §9: the scale of an image made on this screen is its device pixel ratio × 100 (default 100). */
function currentImageScale(): number {
  const ratio = typeof devicePixelRatio === 'number' && devicePixelRatio > 0 ? devicePixelRatio : 1;
  return Math.min(1000, Math.max(1, Math.round(ratio * 100)));
}

export type PreparedImage = { blob: Blob; width: number; height: number; scale: number };

type Canvas = OffscreenCanvas | HTMLCanvasElement;

function makeCanvas(width: number, height: number): Canvas {
  if (typeof OffscreenCanvas !== 'undefined') return new OffscreenCanvas(width, height);
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  return canvas;
}

async function jpegOf(canvas: Canvas): Promise<Blob> {
  if ('convertToBlob' in canvas) return canvas.convertToBlob({ type: 'image/jpeg', quality: jpegQuality });
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', jpegQuality));
  if (!blob) throw new ContentImageError('unreadable');
  return blob;
}

/**
 * Spec §5: the file as a JPEG of the same pixels (its orientation applied, transparency on white), with
 * the scale of this screen. Refuses what the browser cannot decode and what the server would refuse.
 */
export async function prepareContentImage(file: Blob): Promise<PreparedImage> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
  } catch {
    throw new ContentImageError('unreadable');
  }
  try {
    const { width, height } = bitmap;
    if (width < 1 || height < 1) throw new ContentImageError('unreadable');
    if (width > maxContentImageSide || height > maxContentImageSide || width * height > maxContentImagePixels) throw new ContentImageError('too_large');
    const canvas = makeCanvas(width, height);
    const context = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D | null;
    if (!context) throw new ContentImageError('unreadable');
    // JPEG has no alpha: transparent pixels would turn black.
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    context.drawImage(bitmap, 0, 0);
    const blob = await jpegOf(canvas);
    if (blob.size > maxContentImageBytes) throw new ContentImageError('too_large');
    return { blob, width, height, scale: currentImageScale() };
  } finally {
    bitmap.close();
  }
}

export type UploadImageOptions = {
  signal?: AbortSignal;
  /** A try failed and another follows after the pause (show 'failed, retrying'). */
  onRetry?: (failedTry: number, error: ApiError) => void;
  /** The next try starts (the retrying status goes back). */
  onTry?: (attempt: number) => void;
};

/** Spec §9 part upload concurrency, shared by every image this page sends. */
const uploads = createLimiter(PART_UPLOAD_CONCURRENCY);

/**
 * Spec §4 paste flow after the conversion: POST .../content/images, the bytes as part 0 to the upload
 * URL (SHA-1, the packages' part protocol), PUT .../finalize. Resolves with the finalized image (its url,
 * size and scale, what the content's images list keeps).
 */
export function uploadContentImage(projectId: string, image: PreparedImage, options: UploadImageOptions = {}): Promise<FinalizedContentImage> {
  const retry: Partial<RetryPolicy> = { ...uploadRetry, onRetry: options.onRetry, onTry: options.onTry };
  const { signal } = options;
  return uploads.run(async () => {
    const created = await api.call(routes.contentImages.create, {
      params: { project: projectId },
      body: { size: image.blob.size, width: image.width, height: image.height, scale: image.scale },
      signal,
      retry,
    });
    if (image.blob.size > created.uploadInfo.partSize) throw new ContentImageError('too_large');
    const bytes = new Uint8Array(await image.blob.arrayBuffer());
    const hash = await sha1Hex(bytes);
    const part = await sendPart({ api, target: created.uploadInfo, part: 0, bytes, hash, signal, retry });
    try {
      return await api.call(routes.contentImages.finalize, {
        params: { project: projectId, image: created.id },
        body: { token: created.uploadInfo.token, parts: [part] },
        signal,
        retry,
      });
    } catch (error) {
      const image = finishedMeanwhile(error);
      if (image) return image;
      throw error;
    }
  });
}

/**
 * A finalize that answered 503 timeout (its image still queued on a busy server) is tried again; when
 * the image got ready in between, the retry is already_finalized with the image in details: done.
 */
function finishedMeanwhile(error: unknown): FinalizedContentImage | undefined {
  if (!(error instanceof ApiError) || error.code !== 'already_finalized') return undefined;
  const image = finalizedContentImageSchema.safeParse(error.details);
  return image.success ? image.data : undefined;
}

/** The alt text of a pasted file's reference: its name without the extension, markdown's brackets escaped. */
export function altTextOf(name: string): string {
  const base = name.replace(/\.[A-Za-z0-9]{1,5}$/, '').replace(/[\p{Cc}]/gu, ' ').trim();
  return base.replace(/[\\[\]]/g, '\\$&').slice(0, 200);
}

/**
 * The images of a content that its markdown still references (spec §3: the list says which it uses), in
 * the order the text first shows them.
 */
export function referencedImages<T extends { url: string }>(markdown: string, images: readonly T[]): T[] {
  const seen = new Set<string>();
  const found: { image: T; at: number }[] = [];
  for (const image of images) {
    const at = markdown.indexOf(image.url);
    if (at < 0 || seen.has(image.url)) continue;
    seen.add(image.url);
    found.push({ image, at });
  }
  return found.sort((a, b) => a.at - b.at).map((item) => item.image);
}
