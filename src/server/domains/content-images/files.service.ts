import { and, eq } from 'drizzle-orm';
import { contentImageFormats, type ContentImageFormat } from '../../../shared/schemas/content-images.ts';
import { contentImages, type ContentImageVariants } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { notFound } from '../../errors.ts';
import { contentImageSizeKey } from './content-image-keys.ts';

const contentImageMediaTypes: Record<ContentImageFormat, string> = { avif: 'image/avif', webp: 'image/webp', jpeg: 'image/jpeg' };

/** Media types the Accept header names explicitly with q > 0 (a wildcard promises no AVIF or WebP decoder). */
function acceptedTypes(accept: string | null): Set<string> {
  const accepted = new Set<string>();
  for (const item of (accept ?? '').slice(0, 2048).split(',')) {
    const [type, ...parameters] = item.split(';').map((part) => part.trim().toLowerCase());
    if (!type) continue;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (Number.isFinite(weight) && weight > 0) accepted.add(type);
  }
  return accepted;
}

/**
 * The encoding to send: the smallest of the formats the browser names in Accept (image/avif,
 * image/webp) and JPEG, which every browser decodes and is sent whatever Accept says.
 */
function chooseContentImageFormat(accept: string | null, made: ContentImageVariants[string] | undefined): ContentImageFormat | undefined {
  const accepted = acceptedTypes(accept);
  let best: ContentImageFormat | undefined;
  for (const format of contentImageFormats) {
    const size = made?.[format];
    if (size === undefined) continue;
    if (format !== 'jpeg' && !accepted.has(contentImageMediaTypes[format])) continue;
    if (best === undefined || size < made![best]!) best = format;
  }
  return best;
}

export type ContentImageFile = { bytes: Uint8Array; format: ContentImageFormat; mediaType: string };

/**
 * GET /content-images/{id}/{width}: one size of a ready image in the encoding chosen for `accept`.
 * Public to whoever knows the URL (ids are random, ~103 bits): images are made to be shown on public
 * store pages, and an <img> sends no credentials to check. Unknown ids, widths that were not made and
 * images not ready are all not_found.
 */
export async function getContentImageFile(deps: Deps, id: string, widthText: string, accept: string | null): Promise<ContentImageFile> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id) || !/^[1-9]\d{0,4}$/.test(widthText)) throw notFound('content image');
  const width = Number(widthText);
  const [row] = await deps.db
    .select({ variants: contentImages.variants })
    .from(contentImages)
    .where(and(eq(contentImages.id, id), eq(contentImages.status, 'ready')));
  const format = row ? chooseContentImageFormat(accept, row.variants[String(width)]) : undefined;
  if (!format) throw notFound('content image');
  try {
    const bytes = await deps.storage.read(contentImageSizeKey(id, width, format));
    return { bytes, format, mediaType: contentImageMediaTypes[format] };
  } catch {
    // Collected between the row read and the blob read.
    throw notFound('content image');
  }
}
