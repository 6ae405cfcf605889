import { contentImagePath, contentImageWidths, parseContentImagePath } from '../../shared/schemas/content-images.ts';

/**
 * The one rule for showing a content image (spec §9: sized, with a srcset): the shared markdown
 * renderer dresses <img> elements of user content with it, and the store's cover and screenshots
 * (issue 19) use it for their own <img> elements. No React, no DOM but window.location.
 */

/** What is known of an image: its address, its pixels and the scale it was made at (spec §9, default 100). */
export type SizedImage = { url: string; width: number; height?: number; scale: number };

/** A content image's address (any origin, as the server hands them out): its id, width and each size's address. */
export type ContentAddress = { id: string; width: number; sizeUrl: (width: number) => string };

export function contentAddressOf(src: string): ContentAddress | undefined {
  let url: URL;
  try {
    url = new URL(src, window.location.href);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) return undefined;
  const parsed = parseContentImagePath(url.pathname);
  if (!parsed) return undefined;
  // The sizes stay where the author's address points: a path stays a path, an absolute URL its origin.
  const origin = src.startsWith('/') && !src.startsWith('//') ? '' : url.origin;
  return { ...parsed, sizeUrl: (width) => `${origin}${contentImagePath(parsed.id, width)}` };
}

export type ContentImageSources = {
  /** CSS pixels: the image's pixels ÷ its scale (no layout shift). */
  width: number;
  height?: number;
  /** Every size the server made, `url 320w, …` (it picks AVIF, WebP or JPEG by Accept); `url 2x` for other images. */
  srcset: string;
  /** Whether srcset holds widths (a `sizes` attribute applies) or a density. */
  widthDescriptors: boolean;
};

/**
 * An image's CSS size and srcset. `address` is the content image its address names (contentAddressOf),
 * when it is one: then every width of contentImageWidths, else the image itself at its density.
 */
export function contentImageSources(image: SizedImage, address: ContentAddress | undefined): ContentImageSources {
  // scale: device pixels per CSS pixel × 100 the image was made at (spec §9: default 100).
  const density = image.scale / 100;
  const width = Math.max(1, Math.round(image.width / density));
  const height = image.height !== undefined ? Math.max(1, Math.round(image.height / density)) : undefined;
  if (address) {
    return { width, height, srcset: contentImageWidths(image.width).map((size) => `${address.sizeUrl(size)} ${size}w`).join(', '), widthDescriptors: true };
  }
  return { width, height, srcset: `${image.url} ${density}x`, widthDescriptors: false };
}

/** contentImageSources of an image whose own address says whether it is a content image (cover, screenshots). */
export function imageSources(image: SizedImage): ContentImageSources {
  return contentImageSources(image, contentAddressOf(image.url));
}
