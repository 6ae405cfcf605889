import { markdown_image_converting } from '../../../../../shared/i18n/paraglide/messages/markdown_image_converting.js';
import { markdown_image_retrying } from '../../../../../shared/i18n/paraglide/messages/markdown_image_retrying.js';
import { markdown_image_uploading } from '../../../../../shared/i18n/paraglide/messages/markdown_image_uploading.js';
import type { SlotUpload } from './media-draft.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { markdown_image_converting, markdown_image_retrying, markdown_image_uploading };

function uploadText(upload: SlotUpload): string {
  if (upload.status === 'converting') return m.markdown_image_converting({ name: upload.name });
  if (upload.status === 'retrying') return m.markdown_image_retrying({ name: upload.name });
  return m.markdown_image_uploading({ name: upload.name });
}

/** An image on its way: the picked file's preview and where its upload is, in words. */
export function UploadingPicture({ upload, className }: { upload: SlotUpload; className?: string }) {
  const text = uploadText(upload);
  return (
    <div className={`project_media_uploading ${className ?? ''}`.trim()} data-status={upload.status}>
      <img src={upload.preview} alt="" className="project_media_preview" />
      <p className="project_media_upload_text">
        <span>{text}</span>
        {upload.status !== 'retrying' ? <progress className="project_media_progress" aria-label={text} /> : null}
      </p>
    </div>
  );
}
