import type { ContentImageFormat } from '../../../shared/schemas/content-images.ts';

/**
 * The storage layout of content images: everything of one image under `content-images/{id}/`, so the
 * collector and the storage sweep remove an image's blobs by listing one prefix.
 *   part-0          the upload as received (deleted after finalize)
 *   original        the normalised original (oriented, metadata stripped; JPEG q95 4:4:4, or PNG with
 *                   alpha): what the optimise job re-encodes from, so re-encoding never compounds losses
 *   {width}.{fmt}   each served size, fmt avif | webp | jpeg
 */
export const contentImagesPrefix = 'content-images/';

export function contentImagePrefix(id: string): string {
  return `${contentImagesPrefix}${id}/`;
}

export function contentImagePartKey(id: string, part: number): string {
  return `${contentImagesPrefix}${id}/part-${part}`;
}

export function contentImageOriginalKey(id: string): string {
  return `${contentImagesPrefix}${id}/original`;
}

export function contentImageSizeKey(id: string, width: number, format: ContentImageFormat): string {
  return `${contentImagesPrefix}${id}/${width}.${format}`;
}

/** What a key under content-images/ names: the image id and which blob (undefined: not one of ours). */
export function parseContentImageKey(key: string): { id: string; blob: 'part' | 'original' | 'size'; width?: number; format?: ContentImageFormat } | undefined {
  const match = /^content-images\/([A-Za-z0-9_-]+)\/(?:(part-\d+)|(original)|(\d+)\.(avif|webp|jpeg))$/.exec(key);
  if (!match) return undefined;
  if (match[2]) return { id: match[1]!, blob: 'part' };
  if (match[3]) return { id: match[1]!, blob: 'original' };
  return { id: match[1]!, blob: 'size', width: Number(match[4]), format: match[5] as ContentImageFormat };
}
