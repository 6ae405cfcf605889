import { project_media_save_failed } from '../../../../../shared/i18n/paraglide/messages/project_media_save_failed.js';
import { project_media_saved } from '../../../../../shared/i18n/paraglide/messages/project_media_saved.js';
import { project_media_saving } from '../../../../../shared/i18n/paraglide/messages/project_media_saving.js';
import { state_retry } from '../../../../../shared/i18n/paraglide/messages/state_retry.js';
import { errorText, toDisplayError } from '../../../../lib/errors.ts';
import type { SaveState } from './use-media-save.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { project_media_save_failed, project_media_saved, project_media_saving, state_retry };

/** The live line saying the last change and the save's state; a failed save as an alert with Retry. */
export function MediaSaveStatus({ announcement, save, onRetry }: { announcement: string; save: SaveState; onRetry: () => void }) {
  return (
    <>
      <p className="project_media_status" role="status" data-save={save.status}>
        {announcement ? <span className="project_media_announcement">{announcement} </span> : null}
        {save.status === 'saving' ? m.project_media_saving() : save.status === 'saved' ? m.project_media_saved() : null}
      </p>
      {save.status === 'failed' ? (
        <div className="project_media_save_failed" role="alert">
          <span>{m.project_media_save_failed({ reason: errorText(toDisplayError(save.error)) })}</span>
          <button type="button" className="button button_small" onClick={onRetry}>
            {m.state_retry()}
          </button>
        </div>
      ) : null}
    </>
  );
}
