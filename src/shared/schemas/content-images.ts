import { z } from 'zod';
import { partDescriptorSchema, uploadInfoSchema } from './packages.ts';
import { recordIdSchema, tokenText } from './text.ts';

/**
 * Images pasted into markdown content (spec §3 content image upload info, §4 image paste flow, §7
 * .../content/images and .../finalize, §9 scale). The bytes go up as one part (part 0, SHA-1) through the
 * packages' part protocol; finalize decodes and checks them and makes the sizes a srcset needs. Every
 * size is served at contentImageUrl(id, width): the server picks AVIF, WebP or JPEG from the request's
 * Accept header (Vary: Accept), so an <img srcset> needs no <picture> for its fallback.
 */

export const contentImageIdSchema = recordIdSchema;

/** The largest upload and the largest decoded image (pixels): more is refused before decoding. */
export const maxContentImageBytes = 20 * 1024 * 1024;
export const maxContentImagePixels = 40_000_000;
export const maxContentImageSide = 16_384;

/**
 * An image must pay for its pixels: past freeContentImagePixels, every contentImagePixelsPerByte pixels
 * take at least a byte of the file. Processing costs time and memory by the pixel, so a file far smaller
 * than its pixels (a 39 KB PNG of 16384×2441 took a minute and a gigabyte) is refused before decoding.
 * A JPEG of a single flat colour, the smallest any encoder makes, holds ≈ 170 pixels a byte.
 */
const freeContentImagePixels = 4_194_304;
const contentImagePixelsPerByte = 256;

/** The sentence refusing an image whose file is too small for its pixels, or undefined when it pays. */
export function unpaidPixelsMessage(width: number, height: number, bytes: number): string | undefined {
  const pixels = width * height;
  if (pixels <= freeContentImagePixels + bytes * contentImagePixelsPerByte) return undefined;
  const megapixels = (pixels / 1_000_000).toFixed(1);
  return `The image has too many pixels for the size of its file: ${width}×${height} (${megapixels} million pixels) in ${bytes.toLocaleString('en')} bytes; past ${(freeContentImagePixels / 1_000_000).toFixed(1)} million pixels an image needs a byte of file per ${contentImagePixelsPerByte} pixels`;
}

/** POST /projects/{project}/content/images {size, width, height, scale}: what the client is about to send. */
export const createContentImageInput = z.object({
  size: z.number().int().min(1).max(maxContentImageBytes),
  width: z.number().int().min(1).max(maxContentImageSide),
  height: z.number().int().min(1).max(maxContentImageSide),
  /** Device pixels per CSS pixel × 100 the image was made at (spec §9: default 100). */
  scale: z.number().int().min(1).max(1000).default(100),
});

export const createdContentImageSchema = z.object({ id: z.string(), uploadInfo: uploadInfoSchema });
export type CreatedContentImage = z.infer<typeof createdContentImageSchema>;

/** PUT .../content/images/{image}/finalize {token, parts}: exactly one part, part 0. */
export const finalizeContentImageInput = z.object({ token: tokenText(), parts: z.array(partDescriptorSchema).min(1).max(1) });

/**
 * The finalized image: `url` is what the markdown references (its largest size); width and height are
 * the decoded image's (after its orientation is applied), which the description's images list keeps.
 */
export const finalizedContentImageSchema = z.object({
  id: z.string(),
  url: z.string(),
  width: z.number().int(),
  height: z.number().int(),
  scale: z.number().int(),
});
export type FinalizedContentImage = z.infer<typeof finalizedContentImageSchema>;

/** The widths a content image is made in (those below its own width, then its own): srcset candidates. */
const contentImageStepWidths = [320, 640, 960, 1280, 1920, 2560] as const;

export function contentImageWidths(width: number): number[] {
  return [...contentImageStepWidths.filter((step) => step < width), width];
}

/** The path of one size of a content image (on the app's origin; PUBLIC_URL is prefixed for absolute URLs). */
export function contentImagePath(id: string, width: number): string {
  return `/content-images/${encodeURIComponent(id)}/${width}`;
}

/** The id and width a content image path names, or undefined (the renderer maps <img src> back with it). */
export function parseContentImagePath(path: string): { id: string; width: number } | undefined {
  const match = /^\/content-images\/([A-Za-z0-9_-]{1,64})\/(\d{1,5})$/.exec(path);
  if (!match) return undefined;
  return { id: match[1]!, width: Number(match[2]) };
}

/** Formats the server encodes each size in, best first; JPEG is the fallback every browser takes. */
export const contentImageFormats = ['avif', 'webp', 'jpeg'] as const;
export type ContentImageFormat = (typeof contentImageFormats)[number];

/** POST /admin/maintenance/optimize-content-images: the job that re-encodes every image's sizes. */
export const optimizeContentImagesOutputSchema = z.object({ images: z.number().int(), failed: z.number().int() });
export type OptimizeContentImagesOutput = z.infer<typeof optimizeContentImagesOutputSchema>;
