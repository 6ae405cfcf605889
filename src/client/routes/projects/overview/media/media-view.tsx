import { project_media_cover_alt } from '../../../../../shared/i18n/paraglide/messages/project_media_cover_alt.js';
import { project_media_screenshot_label } from '../../../../../shared/i18n/paraglide/messages/project_media_screenshot_label.js';
import type { ProjectMedia } from '../../../../../shared/schemas/project-media.ts';
import { coverSizes, MediaPicture, tileSizes } from './media-picture.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { project_media_cover_alt, project_media_screenshot_label };

/** The cover and screenshots as they are, for members who may not edit them. */
export function MediaView({ title, media }: { title: string; media: ProjectMedia }) {
  return (
    <div className="project_media_view">
      {media.cover ? <MediaPicture image={media.cover} alt={m.project_media_cover_alt({ title })} sizes={coverSizes} className="project_media_cover_image" /> : null}
      {media.screenshots.length > 0 ? (
        <ul className="project_media_tiles">
          {media.screenshots.map((image, index) => (
            <li key={image.id} className="project_media_tile">
              <MediaPicture image={image} alt={m.project_media_screenshot_label({ position: String(index + 1), count: String(media.screenshots.length) })} sizes={tileSizes} />
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
