import { useId } from 'react';
import { project_media_cover } from '../../../../../shared/i18n/paraglide/messages/project_media_cover.js';
import { project_media_cover_alt } from '../../../../../shared/i18n/paraglide/messages/project_media_cover_alt.js';
import { project_media_cover_none } from '../../../../../shared/i18n/paraglide/messages/project_media_cover_none.js';
import { project_media_cover_pick } from '../../../../../shared/i18n/paraglide/messages/project_media_cover_pick.js';
import { project_media_cover_remove } from '../../../../../shared/i18n/paraglide/messages/project_media_cover_remove.js';
import { project_media_cover_replace } from '../../../../../shared/i18n/paraglide/messages/project_media_cover_replace.js';
import { project_media_drop_hint } from '../../../../../shared/i18n/paraglide/messages/project_media_drop_hint.js';
import type { Slot } from './media-draft.ts';
import { coverSizes, MediaPicture } from './media-picture.tsx';
import { PickButton } from './pick-button.tsx';
import { UploadingPicture } from './uploading-picture.tsx';
import { useFileDrop } from './use-file-drop.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  project_media_cover,
  project_media_cover_alt,
  project_media_cover_none,
  project_media_cover_pick,
  project_media_cover_remove,
  project_media_cover_replace,
  project_media_drop_hint,
};

/** The editor's cover: the picture (or its upload), pick or replace, remove; files may be dropped on it. */
export function CoverArea({ title, slot, onFiles, onRemove }: { title: string; slot: Slot | null; onFiles: (files: FileList) => void; onRemove: () => void }) {
  const drop = useFileDrop(onFiles);
  const hintId = useId();
  return (
    <div className="project_media_area project_media_cover" data-dragging={drop.over || undefined} aria-describedby={hintId} {...drop.handlers}>
      <h3>{m.project_media_cover()}</h3>
      <div className="project_media_cover_frame">
        {slot?.upload ? (
          <UploadingPicture upload={slot.upload} />
        ) : slot?.image ? (
          <MediaPicture image={slot.image} alt={m.project_media_cover_alt({ title })} sizes={coverSizes} className="project_media_cover_image" />
        ) : (
          <p className="project_media_empty">{m.project_media_cover_none()}</p>
        )}
      </div>
      <div className="actions project_media_actions">
        <PickButton label={slot ? m.project_media_cover_replace() : m.project_media_cover_pick()} multiple={false} onFiles={onFiles} pick="cover" />
        {slot?.image ? (
          <button type="button" className="button button_quiet" onClick={onRemove}>
            {m.project_media_cover_remove()}
          </button>
        ) : null}
      </div>
      <p id={hintId} className="field_hint project_media_hint">
        {m.project_media_drop_hint()}
      </p>
    </div>
  );
}
