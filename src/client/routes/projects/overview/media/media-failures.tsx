import { markdown_image_dismiss } from '../../../../../shared/i18n/paraglide/messages/markdown_image_dismiss.js';
import { project_media_failures_label } from '../../../../../shared/i18n/paraglide/messages/project_media_failures_label.js';
import type { Failure } from './use-media-uploads.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { markdown_image_dismiss, project_media_failures_label };

/** The files that did not go up, each with the reason and a button to dismiss it. */
export function MediaFailures({ failures, onDismiss }: { failures: Failure[]; onDismiss: (key: string) => void }) {
  if (failures.length === 0) return null;
  return (
    <ul className="pasted_images project_media_failures" aria-label={m.project_media_failures_label()}>
      {failures.map((failure) => (
        <li key={failure.key} className="pasted_image" data-status="failed">
          <span className="pasted_image_text">{failure.text}</span>
          <button type="button" className="button button_small" onClick={() => onDismiss(failure.key)}>
            {m.markdown_image_dismiss()}
          </button>
        </li>
      ))}
    </ul>
  );
}
