import { useEffect, useRef, useState, type CSSProperties, type KeyboardEvent } from 'react';
import { store_gallery_alt } from '../../../shared/i18n/paraglide/messages/store_gallery_alt.js';
import { store_gallery_close } from '../../../shared/i18n/paraglide/messages/store_gallery_close.js';
import { store_gallery_heading } from '../../../shared/i18n/paraglide/messages/store_gallery_heading.js';
import { store_gallery_next } from '../../../shared/i18n/paraglide/messages/store_gallery_next.js';
import { store_gallery_position } from '../../../shared/i18n/paraglide/messages/store_gallery_position.js';
import { store_gallery_previous } from '../../../shared/i18n/paraglide/messages/store_gallery_previous.js';
import { Modal } from '../../dialogs/modal.tsx';
import { imageSources } from '../../lib/content-image-sources.ts';
import { useLanguage } from '../../lib/i18n/react.tsx';
import type { ProjectMedia } from '../../../shared/schemas/project-media.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { store_gallery_alt, store_gallery_close, store_gallery_heading, store_gallery_next, store_gallery_position, store_gallery_previous };

type Screenshot = ProjectMedia['screenshots'][number];

/**
 * Thumbnails, a row under the cover (store-project-page.css): four across the main column (at most
 * 45rem), a little over two on a phone (the row scrolls sideways).
 */
const thumbnailSizes = '(min-width: 72rem) 11rem, (min-width: 56rem) calc((100vw - 27rem) / 4), 38vw';
/** The large view: the dialog is at most 72rem wide, less its padding. */
const largeSizes = '(min-width: 76rem) 70rem, 94vw';

const positionText = (index: number, count: number) => m.store_gallery_position({ position: String(index + 1), count: String(count) });

/**
 * The store page's screenshots (issue 19): a row of thumbnails right under the cover or game (issue 29:
 * in the first screen), with their srcset, loaded lazily; a thumbnail
 * opens the screenshot large in a modal dialog with previous and next (buttons, and the arrow keys in
 * the reading direction), Escape or Close to go back, focus returned to the thumbnail last shown.
 */
export function StoreGallery({ title, screenshots }: { title: string; screenshots: readonly Screenshot[] }) {
  const [open, setOpen] = useState<number | null>(null);
  const thumbnails = useRef<(HTMLButtonElement | null)[]>([]);
  const lastShown = useRef<number | null>(null);

  useEffect(() => {
    if (open !== null || lastShown.current === null) return;
    // After the dialog gave focus back to the thumbnail that opened it: the one last shown takes it.
    thumbnails.current[lastShown.current]?.focus();
    lastShown.current = null;
  }, [open]);

  if (screenshots.length === 0) return null;
  const count = screenshots.length;
  return (
    <section className="store_gallery" aria-labelledby="store-gallery">
      <h2 id="store-gallery" className="visually_hidden">
        {m.store_gallery_heading()}
      </h2>
      <ul className="store_gallery_list">
        {screenshots.map((shot, index) => {
          const sources = imageSources(shot);
          return (
            <li key={shot.id} className="store_gallery_item">
              <button
                type="button"
                className="store_gallery_thumb"
                aria-haspopup="dialog"
                ref={(element) => {
                  thumbnails.current[index] = element;
                }}
                onClick={() => setOpen(index)}
              >
                <img
                  src={shot.url}
                  srcSet={sources.srcset}
                  sizes={sources.widthDescriptors ? thumbnailSizes : undefined}
                  width={sources.width}
                  height={sources.height}
                  alt={m.store_gallery_alt({ position: String(index + 1), count: String(count), title })}
                  loading="lazy"
                  decoding="async"
                />
              </button>
            </li>
          );
        })}
      </ul>
      {open !== null ? (
        <GalleryDialog
          title={title}
          screenshots={screenshots}
          index={open}
          onIndex={setOpen}
          onClose={(last) => {
            lastShown.current = last;
            setOpen(null);
          }}
        />
      ) : null}
    </section>
  );
}

function GalleryDialog({ title, screenshots, index, onIndex, onClose }: { title: string; screenshots: readonly Screenshot[]; index: number; onIndex: (index: number) => void; onClose: (last: number) => void }) {
  const { dir } = useLanguage();
  const count = screenshots.length;
  const shot = screenshots[index]!;
  const sources = imageSources(shot);
  const go = (step: number) => onIndex((index + step + count) % count);
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.altKey || event.ctrlKey || event.metaKey || count < 2) return;
    // Arrows follow the reading direction: in Arabic, the next screenshot is to the left.
    const forward = dir === 'rtl' ? 'ArrowLeft' : 'ArrowRight';
    const backward = dir === 'rtl' ? 'ArrowRight' : 'ArrowLeft';
    if (event.key === forward) go(1);
    else if (event.key === backward) go(-1);
    else return;
    event.preventDefault();
  };
  return (
    <Modal title={positionText(index, count)} onCancel={() => onClose(index)} className="store_lightbox">
      <div className="store_lightbox_body" onKeyDown={onKeyDown}>
        <p className="visually_hidden" aria-live="polite">
          {positionText(index, count)}
        </p>
        <figure className="store_lightbox_figure">
          <img
            key={shot.id}
            className="store_lightbox_image"
            src={shot.url}
            srcSet={sources.srcset}
            sizes={sources.widthDescriptors ? largeSizes : undefined}
            width={sources.width}
            height={sources.height}
            // Never drawn larger than its own size (CSS pixels): with a width srcset the browser would
            // take the `sizes` width as the image's, and scale a small screenshot up to the dialog.
            style={{ '--natural-inline-size': `${sources.width}px` } as CSSProperties}
            alt={m.store_gallery_alt({ position: String(index + 1), count: String(count), title })}
            decoding="async"
          />
        </figure>
        <div className="store_lightbox_controls">
          {count > 1 ? (
            <button type="button" className="button store_lightbox_previous" onClick={() => go(-1)}>
              <span aria-hidden="true" className="store_lightbox_arrow">
                ‹
              </span>
              {m.store_gallery_previous()}
            </button>
          ) : null}
          <button type="button" className="button store_lightbox_close" data-autofocus onClick={() => onClose(index)}>
            {m.store_gallery_close()}
          </button>
          {count > 1 ? (
            <button type="button" className="button store_lightbox_next" onClick={() => go(1)}>
              {m.store_gallery_next()}
              <span aria-hidden="true" className="store_lightbox_arrow">
                ›
              </span>
            </button>
          ) : null}
        </div>
      </div>
    </Modal>
  );
}
