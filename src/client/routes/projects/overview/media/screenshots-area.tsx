import { useId } from 'react';
import { project_media_drop_hint } from '../../../../../shared/i18n/paraglide/messages/project_media_drop_hint.js';
import { project_media_full } from '../../../../../shared/i18n/paraglide/messages/project_media_full.js';
import { project_media_screenshots } from '../../../../../shared/i18n/paraglide/messages/project_media_screenshots.js';
import { project_media_screenshots_add } from '../../../../../shared/i18n/paraglide/messages/project_media_screenshots_add.js';
import { project_media_screenshots_count } from '../../../../../shared/i18n/paraglide/messages/project_media_screenshots_count.js';
import { project_media_screenshots_none } from '../../../../../shared/i18n/paraglide/messages/project_media_screenshots_none.js';
import { maxScreenshots } from '../../../../../shared/schemas/project-media.ts';
import type { Slot } from './media-draft.ts';
import { PickButton } from './pick-button.tsx';
import { ScreenshotTile, type ScreenshotActions } from './screenshot-tile.tsx';
import { useFileDrop } from './use-file-drop.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  project_media_drop_hint,
  project_media_full,
  project_media_screenshots,
  project_media_screenshots_add,
  project_media_screenshots_count,
  project_media_screenshots_none,
};

/** The editor's screenshots: their tiles in order, add more (up to maxScreenshots); files may be dropped on it. */
export function ScreenshotsArea(
  props: {
    slots: Slot[];
    coverId: string | undefined;
    onFiles: (files: FileList) => void;
  } & ScreenshotActions,
) {
  const { slots, onFiles } = props;
  const drop = useFileDrop(onFiles);
  const hintId = useId();
  const full = slots.length >= maxScreenshots;
  return (
    <div className="project_media_area project_media_screenshots" data-dragging={drop.over || undefined} aria-describedby={hintId} {...drop.handlers}>
      <div className="project_media_area_head">
        <h3>{m.project_media_screenshots()}</h3>
        <span className="project_media_count">{m.project_media_screenshots_count({ count: String(slots.length), max: String(maxScreenshots) })}</span>
      </div>
      {slots.length === 0 ? (
        <p className="project_media_empty">{m.project_media_screenshots_none()}</p>
      ) : (
        <ol className="project_media_tiles">
          {slots.map((slot, index) => (
            <ScreenshotTile key={slot.key} slot={slot} index={index} count={slots.length} {...props} />
          ))}
        </ol>
      )}
      <div className="actions project_media_actions">
        {full ? null : <PickButton label={m.project_media_screenshots_add()} multiple onFiles={onFiles} pick="screenshots" />}
      </div>
      <p id={hintId} className="field_hint project_media_hint">
        {full ? m.project_media_full({ max: String(maxScreenshots) }) : m.project_media_drop_hint()}
      </p>
    </div>
  );
}
