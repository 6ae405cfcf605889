import type { ReactNode } from 'react';
import { project_media_cover } from '../../../../../shared/i18n/paraglide/messages/project_media_cover.js';
import { project_media_move_earlier } from '../../../../../shared/i18n/paraglide/messages/project_media_move_earlier.js';
import { project_media_move_later } from '../../../../../shared/i18n/paraglide/messages/project_media_move_later.js';
import { project_media_remove } from '../../../../../shared/i18n/paraglide/messages/project_media_remove.js';
import { project_media_screenshot_label } from '../../../../../shared/i18n/paraglide/messages/project_media_screenshot_label.js';
import { project_media_use_as_cover } from '../../../../../shared/i18n/paraglide/messages/project_media_use_as_cover.js';
import type { Slot } from './media-draft.ts';
import { MediaPicture, tileSizes } from './media-picture.tsx';
import { UploadingPicture } from './uploading-picture.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  project_media_cover,
  project_media_move_earlier,
  project_media_move_later,
  project_media_remove,
  project_media_screenshot_label,
  project_media_use_as_cover,
};

/** What a screenshot's buttons do, by the slot's key. */
export type ScreenshotActions = {
  onMove: (key: string, step: number) => void;
  onRemove: (key: string) => void;
  onCover: (key: string) => void;
};

/** One screenshot: its picture (or upload), then move earlier or later, use as cover, remove. */
export function ScreenshotTile({ slot, index, count, coverId, onMove, onRemove, onCover }: { slot: Slot; index: number; count: number; coverId: string | undefined } & ScreenshotActions) {
  const label = m.project_media_screenshot_label({ position: String(index + 1), count: String(count) });
  let picture: ReactNode = null;
  if (slot.upload) picture = <UploadingPicture upload={slot.upload} />;
  else if (slot.image) picture = <MediaPicture image={slot.image} alt={label} sizes={tileSizes} />;
  const ready = slot.image !== undefined && !slot.upload;
  const isCover = ready && slot.image!.id === coverId;
  // aria-disabled, not disabled: a button that reaches the end keeps the focus it had.
  const first = index === 0;
  const last = index === count - 1;
  return (
    <li className="project_media_tile" data-slot={slot.key} data-image-id={slot.image?.id}>
      <div role="group" aria-label={label} className="project_media_tile_body">
        <div className="project_media_tile_picture">
          {picture}
          {isCover ? <span className="badge project_media_cover_badge">{m.project_media_cover()}</span> : null}
        </div>
        {ready ? (
          <div className="project_media_tile_actions">
            <MoveButton direction="earlier" disabled={first} onMove={() => onMove(slot.key, -1)} />
            <MoveButton direction="later" disabled={last} onMove={() => onMove(slot.key, 1)} />
            <button
              type="button"
              className="button button_small"
              aria-disabled={isCover || undefined}
              onClick={() => {
                if (!isCover) onCover(slot.key);
              }}
            >
              {m.project_media_use_as_cover()}
            </button>
            <button type="button" className="button button_small button_danger_text" data-remove onClick={() => onRemove(slot.key)}>
              {m.project_media_remove()}
            </button>
          </div>
        ) : null}
      </div>
    </li>
  );
}

/** Moves a screenshot one place; aria-disabled at the end of the list, so the button keeps its focus. */
function MoveButton({ direction, disabled, onMove }: { direction: 'earlier' | 'later'; disabled: boolean; onMove: () => void }) {
  const label = direction === 'earlier' ? m.project_media_move_earlier() : m.project_media_move_later();
  return (
    <button
      type="button"
      className="button button_small project_media_move"
      aria-label={label}
      title={label}
      aria-disabled={disabled || undefined}
      data-move={direction}
      onClick={() => {
        if (!disabled) onMove();
      }}
    >
      <span aria-hidden="true" className="project_media_arrow">
        {direction === 'earlier' ? '←' : '→'}
      </span>
    </button>
  );
}
