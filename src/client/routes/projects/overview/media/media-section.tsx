import { project_media_heading } from '../../../../../shared/i18n/paraglide/messages/project_media_heading.js';
import { project_media_intro } from '../../../../../shared/i18n/paraglide/messages/project_media_intro.js';
import { ErrorState, LoadingState } from '../../../../components/states.tsx';
import { trpc } from '../../../../lib/trpc.ts';
import type { Project } from '../../../../../shared/schemas/projects.ts';
import { can } from '../../project-frame.tsx';
import { MediaEditor } from './media-editor.tsx';
import { MediaView } from './media-view.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { project_media_heading, project_media_intro };

/**
 * The overview's 'Cover and screenshots' (issue 19): the pictures of the store page. Those who may edit
 * the project (patchProject: owner, admins, developers) pick or drop image files, which go up through the
 * paste flow's code (lib/content-images.ts: JPEG in the browser, create, part 0 with spec §9's retries,
 * finalize), reorder the screenshots (buttons, so the keyboard does it too), remove them or make one the
 * cover; every change is saved at once with PUT .../media, and what happens is said in words
 * (media-editor.tsx). Others see the pictures, when there are any (media-view.tsx).
 */
export function MediaSection({ project }: { project: Project }) {
  const media = trpc.projects.media.get.useQuery({ project: project.id });
  const editable = can(project, 'patchProject');
  if (!editable) {
    if (!media.data || (!media.data.cover && media.data.screenshots.length === 0)) return null;
    return (
      <section className="section project_media" aria-labelledby="project-media">
        <h2 id="project-media">{m.project_media_heading()}</h2>
        <MediaView title={project.title} media={media.data} />
      </section>
    );
  }
  return (
    <section className="section project_media" aria-labelledby="project-media">
      <h2 id="project-media">{m.project_media_heading()}</h2>
      <p className="section_intro">{m.project_media_intro()}</p>
      {media.isPending ? <LoadingState /> : null}
      {media.error ? <ErrorState error={media.error} onRetry={() => void media.refetch()} /> : null}
      {media.data ? <MediaEditor project={project} initial={media.data} /> : null}
    </section>
  );
}
