import { project_overview_description } from '../../../../shared/i18n/paraglide/messages/project_overview_description.js';
import { project_overview_description_empty } from '../../../../shared/i18n/paraglide/messages/project_overview_description_empty.js';
import { project_overview_edit_description } from '../../../../shared/i18n/paraglide/messages/project_overview_edit_description.js';
import { MarkdownView } from '../../../components/markdown-view.tsx';
import { EmptyState, ErrorState, LoadingState } from '../../../components/states.tsx';
import { MarkdownEditorDialog } from '../../../dialogs/markdown-editor-dialog.tsx';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { trpc } from '../../../lib/trpc.ts';
import type { Description, Project } from '../../../../shared/schemas/projects.ts';
import { can } from '../project-frame.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { project_overview_description, project_overview_description_empty, project_overview_edit_description };

/** The project's markdown description; admins edit it in the markdown editor. */
export function DescriptionSection({ project }: { project: Project }) {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const description = trpc.projects.description.get.useQuery({ project: project.id });
  const put = trpc.projects.description.put.useMutation();

  const startEdit = async (current: Description) => {
    await dialogs.open<boolean>((close) => (
      <MarkdownEditorDialog
        title={m.project_overview_edit_description()}
        initial={current.markdown}
        images={current.images}
        projectId={project.id}
        headingOffset={2}
        onSave={async (markdown, images) => {
          // The images the text references: those it had and those pasted into it (spec §3 images).
          const saved = await put.mutateAsync({ project: project.id, description: { markdown, lang: current.lang, images } });
          utils.projects.description.get.setData({ project: project.id }, saved);
        }}
        onClose={close}
      />
    ));
  };

  const data = description.data;
  return (
    <section className="section project_overview_description" aria-labelledby="project-description">
      <div className="project_overview_section_head">
        <h2 id="project-description">{m.project_overview_description()}</h2>
        {data && can(project, 'patchProject') ? (
          <button type="button" className="button" onClick={() => void startEdit(data)}>
            {m.project_overview_edit_description()}
          </button>
        ) : null}
      </div>
      {description.isPending ? <LoadingState /> : null}
      {description.error ? <ErrorState error={description.error} onRetry={() => void description.refetch()} /> : null}
      {data && data.markdown.trim() === '' ? <EmptyState>{m.project_overview_description_empty()}</EmptyState> : null}
      {data && data.markdown.trim() !== '' ? <MarkdownView markdown={data.markdown} images={data.images} lang={data.lang} headingOffset={2} /> : null}
    </section>
  );
}
