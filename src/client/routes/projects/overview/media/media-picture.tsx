import { imageSources } from '../../../../lib/content-image-sources.ts';
import type { MediaImage } from './media-draft.ts';

/** The cover shown across the section (at most about 36rem), a screenshot as a tile of about 12rem. */
export const coverSizes = '(min-width: 40rem) 36rem, 90vw';
export const tileSizes = '(min-width: 40rem) 12rem, 45vw';

/** A finalized image with its srcset and size (the content image rule), lazily. */
export function MediaPicture({ image, alt, sizes, className }: { image: MediaImage; alt: string; sizes: string; className?: string }) {
  const sources = imageSources(image);
  return (
    <img
      className={className}
      src={image.url}
      srcSet={sources.srcset}
      sizes={sources.widthDescriptors ? sizes : undefined}
      width={sources.width}
      height={sources.height}
      alt={alt}
      loading="lazy"
      decoding="async"
    />
  );
}
