import type * as SharpModule from 'sharp';
import {
  contentImageFormats,
  maxContentImagePixels,
  maxContentImageSide,
  unpaidPixelsMessage,
  type ContentImageFormat,
} from '../../../shared/schemas/content-images.ts';
import type { ContentImageVariants } from '../../db/schema/index.ts';
import { AppError } from '../../errors.ts';
import type { ImageLibrary } from './image-library.ts';

type SharpInstance = SharpModule.Sharp;

/**
 * How every size is encoded (finalize and the optimise job use the same, so re-optimising after a
 * change here brings old images up to date). Measured on the 2-core machine of STACK-NOTES.md, one
 * 1920×1080 photo-like image: mozjpeg q80 ≈ 270 ms, WebP q80 effort 4 ≈ 260 ms, AVIF q50 effort 2 ≈
 * 500 ms (effort 4, libvips' default, took 5.4 s for a file of the same size).
 */
export const contentImageEncodings = {
  avif: { quality: 50, effort: 2 },
  webp: { quality: 80, effort: 4 },
  jpeg: { quality: 80, mozjpeg: true },
} as const;

/** The normalised original: near-lossless (JPEG q95 without chroma subsampling), PNG when it has alpha. */
const originalJpeg = { quality: 95, chromaSubsampling: '4:4:4' } as const;

/** WebP cannot encode a side longer than this: wider sizes are served as AVIF or JPEG. */
const maxWebpSide = 16_383;

/** Longest one libvips pipeline may run before it is abandoned (a 40 MP AVIF encode takes seconds). */
const pipelineTimeoutSeconds = 120;

/** The formats an upload may be in: sniffed from its first bytes before libvips sees it (no SVG, PDF, TIFF, ...). */
export type UploadFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif';

const notAnImage = 'The file is not an image this server takes: send a JPEG, PNG, WebP, AVIF or GIF image';

function sniffImageFormat(bytes: Uint8Array): UploadFormat | undefined {
  const ascii = (start: number, end: number) => String.fromCharCode(...bytes.subarray(start, end));
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 8 && ascii(0, 8) === '\x89PNG\r\n\x1a\n') return 'png';
  if (bytes.length >= 6 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return 'gif';
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  if (bytes.length >= 16 && ascii(4, 8) === 'ftyp') {
    // ISO BMFF: the major brand, then (after the minor version) the compatible brands, to the box's end.
    const boxEnd = Math.min(bytes.length, new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0));
    const brands = [ascii(8, 12)];
    for (let at = 16; at + 4 <= boxEnd && brands.length < 64; at += 4) brands.push(ascii(at, at + 4));
    if (brands.includes('avif') || brands.includes('avis')) return 'avif';
  }
  return undefined;
}

/** Decoded pixels in sRGB, 8 bits per channel, orientation applied: what every size is made from. */
export type DecodedImage = { pixels: Buffer; width: number; height: number; channels: 3 | 4 };

function rawInput(image: DecodedImage): SharpModule.SharpOptions {
  return { raw: { width: image.width, height: image.height, channels: image.channels } };
}

function pixelCountMessage(width: number, height: number): string {
  return `The image has too many pixels: ${width}×${height}, at most ${maxContentImagePixels.toLocaleString('en')} pixels and ${maxContentImageSide} per side`;
}

/**
 * Checks and decodes an upload: the format is sniffed (only JPEG, PNG, WebP, AVIF and GIF's first
 * frame), the header's size is checked against maxContentImagePixels and maxContentImageSide before
 * any pixel is decoded (a decompression bomb declares its size), so is the file's size against its pixels
 * (unpaidPixelsMessage: an image must pay for its pixels), and libvips decodes under the same
 * pixel limit, failing on damaged data. EXIF orientation is applied, colour converted to sRGB; the
 * pixels carry no metadata (EXIF, GPS, XMP, ICC) from here on. Refusals are bad_param with a sentence.
 */
export async function decodeUpload(sharp: ImageLibrary, bytes: Uint8Array): Promise<DecodedImage & { sourceFormat: UploadFormat }> {
  const sourceFormat = sniffImageFormat(bytes);
  if (!sourceFormat) throw new AppError('bad_param', notAnImage);
  const options: SharpModule.SharpOptions = { limitInputPixels: maxContentImagePixels, failOn: 'error' };
  let metadata: SharpModule.Metadata;
  try {
    metadata = await sharp(bytes, { ...options, limitInputPixels: false }).metadata();
  } catch {
    throw new AppError('bad_param', notAnImage);
  }
  const expected = sourceFormat === 'avif' ? 'heif' : sourceFormat;
  if (metadata.format !== expected || (sourceFormat === 'avif' && metadata.compression !== 'av1')) throw new AppError('bad_param', notAnImage);
  const { width, height } = metadata;
  if (!width || !height) throw new AppError('bad_param', notAnImage);
  if (width * height > maxContentImagePixels || width > maxContentImageSide || height > maxContentImageSide) {
    throw new AppError('bad_param', pixelCountMessage(width, height), { width, height, maxPixels: maxContentImagePixels, maxSide: maxContentImageSide });
  }
  const unpaid = unpaidPixelsMessage(width, height, bytes.length);
  if (unpaid) throw new AppError('bad_param', unpaid, { width, height, bytes: bytes.length });
  try {
    const decoded = await toPixels(sharp(bytes, options).autoOrient(), metadata.hasAlpha);
    return { ...decoded, sourceFormat };
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);
    if (/pixel limit/i.test(reason)) throw new AppError('bad_param', pixelCountMessage(width, height));
    throw new AppError('bad_param', `The image could not be decoded: its data is damaged or incomplete (${reason})`);
  }
}

/** Decodes a stored normalised original (the optimise job). */
export async function decodeOriginal(sharp: ImageLibrary, bytes: Uint8Array): Promise<DecodedImage> {
  const metadata = await sharp(bytes, { limitInputPixels: maxContentImagePixels }).metadata();
  return toPixels(sharp(bytes, { limitInputPixels: maxContentImagePixels }), metadata.hasAlpha);
}

async function toPixels(pipeline: SharpInstance, hasAlpha: boolean): Promise<DecodedImage> {
  let step = pipeline.timeout({ seconds: pipelineTimeoutSeconds }).toColourspace('srgb');
  step = hasAlpha ? step.ensureAlpha() : step.removeAlpha();
  const { data, info } = await step.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  return { pixels: data, width: info.width, height: info.height, channels: info.channels === 4 ? 4 : 3 };
}

/** The normalised original kept for re-encoding: JPEG q95 4:4:4, or PNG when the image has alpha. */
export async function encodeOriginal(sharp: ImageLibrary, image: DecodedImage): Promise<Uint8Array> {
  const pipeline = sharp(image.pixels, rawInput(image)).timeout({ seconds: pipelineTimeoutSeconds });
  const output = image.channels === 4 ? pipeline.png({ compressionLevel: 6 }) : pipeline.jpeg(originalJpeg);
  return new Uint8Array(await output.toBuffer());
}

function encoder(sharp: ImageLibrary, image: DecodedImage, format: ContentImageFormat): SharpInstance {
  const pipeline = sharp(image.pixels, rawInput(image)).timeout({ seconds: pipelineTimeoutSeconds });
  if (format === 'avif') return pipeline.avif(contentImageEncodings.avif);
  if (format === 'webp') return pipeline.webp(contentImageEncodings.webp);
  // JPEG has no alpha: transparent parts become white, as on the page's light background.
  return (image.channels === 4 ? pipeline.flatten({ background: '#ffffff' }) : pipeline).jpeg(contentImageEncodings.jpeg);
}

/** The image scaled to `width` (its own width: as is), height rounded, at least 1. */
async function scaled(sharp: ImageLibrary, image: DecodedImage, width: number): Promise<DecodedImage> {
  if (width === image.width) return image;
  const height = Math.max(1, Math.round((image.height * width) / image.width));
  const { data, info } = await sharp(image.pixels, rawInput(image))
    .timeout({ seconds: pipelineTimeoutSeconds })
    .resize({ width, height, fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { pixels: data, width: info.width, height: info.height, channels: image.channels };
}

/**
 * Encodes every width in every format (contentImageFormats; WebP only up to its 16383-pixel limit),
 * handing each result to `store` as soon as it exists (at most one width's encodings in memory), and
 * returns the bytes of each. One format after the other: three encoders of a 20 MP image at once peaked
 * at 1.13 GB, one at a time at 0.89 GB (measured), and the image worker's memory cap is what bounds it. JPEG must succeed; a modern format that fails for one width is left out
 * (the server then serves another) rather than failing the image.
 */
export async function encodeSizes(
  sharp: ImageLibrary,
  image: DecodedImage,
  widths: readonly number[],
  store: (width: number, format: ContentImageFormat, bytes: Uint8Array) => Promise<void>,
): Promise<ContentImageVariants> {
  const variants: ContentImageVariants = {};
  for (const width of widths) {
    const size = await scaled(sharp, image, width);
    const formats = contentImageFormats.filter((format) => format !== 'webp' || (size.width <= maxWebpSide && size.height <= maxWebpSide));
    const encoded: ({ format: ContentImageFormat; bytes: Uint8Array } | undefined)[] = [];
    for (const format of formats) {
      try {
        encoded.push({ format, bytes: new Uint8Array(await encoder(sharp, size, format).toBuffer()) });
      } catch (error) {
        if (format === 'jpeg') throw error;
      }
    }
    variants[String(width)] = {};
    for (const item of encoded) {
      if (!item) continue;
      await store(width, item.format, item.bytes);
      variants[String(width)]![item.format] = item.bytes.byteLength;
    }
  }
  return variants;
}
