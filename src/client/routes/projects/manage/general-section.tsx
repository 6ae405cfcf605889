import { manage_general_heading } from '../../../../shared/i18n/paraglide/messages/manage_general_heading.js';
import { manage_general_intro } from '../../../../shared/i18n/paraglide/messages/manage_general_intro.js';
import { manage_rename } from '../../../../shared/i18n/paraglide/messages/manage_rename.js';
import { manage_rename_label } from '../../../../shared/i18n/paraglide/messages/manage_rename_label.js';
import { manage_rename_title } from '../../../../shared/i18n/paraglide/messages/manage_rename_title.js';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { trpc } from '../../../lib/trpc.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import { useProjectRefresh } from './use-project-refresh.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { manage_general_heading, manage_general_intro, manage_rename, manage_rename_label, manage_rename_title };

/** The project title (projectTitleSchema: 1 to 100 characters after trimming). */
const titleMaxLength = 100;

/** Rename (patchProject): the prompt is the confirmation, it names the action on its button. */
export function GeneralSection({ project }: { project: Project }) {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const refresh = useProjectRefresh(project.id);
  const patch = trpc.projects.patch.useMutation();

  const startRename = async () => {
    const entered = await dialogs.prompt({
      title: m.manage_rename_title(),
      label: m.manage_rename_label(),
      initialValue: project.title,
      maxLength: titleMaxLength,
      confirmLabel: m.manage_rename(),
    });
    const title = entered?.trim();
    if (!title || title === project.title) return;
    const updated = await dialogs.attempt(() => patch.mutateAsync({ project: project.id, title }));
    if (!updated) return;
    utils.projects.get.setData({ project: project.id }, updated);
    await refresh.project();
  };

  return (
    <section className="section" aria-labelledby="manage-general">
      <h2 id="manage-general">{m.manage_general_heading()}</h2>
      <p className="section_intro">{m.manage_general_intro()}</p>
      <dl className="facts">
        <dt>{m.manage_rename_label()}</dt>
        <dd data-testid="manage-project-title">{project.title}</dd>
      </dl>
      <div className="actions">
        <button type="button" className="button" onClick={() => void startRename()}>
          {m.manage_rename()}
        </button>
      </div>
    </section>
  );
}
