import { useLocation } from 'wouter';
import { manage_delete_button } from '../../../../shared/i18n/paraglide/messages/manage_delete_button.js';
import { manage_delete_heading } from '../../../../shared/i18n/paraglide/messages/manage_delete_heading.js';
import { manage_delete_label } from '../../../../shared/i18n/paraglide/messages/manage_delete_label.js';
import { manage_delete_mismatch } from '../../../../shared/i18n/paraglide/messages/manage_delete_mismatch.js';
import { manage_delete_text } from '../../../../shared/i18n/paraglide/messages/manage_delete_text.js';
import { manage_delete_title } from '../../../../shared/i18n/paraglide/messages/manage_delete_title.js';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { trpc } from '../../../lib/trpc.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import { projectsHref } from '../links.ts';
import { useProjectRefresh } from './use-project-refresh.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { manage_delete_button, manage_delete_heading, manage_delete_label, manage_delete_mismatch, manage_delete_text, manage_delete_title };

/** deleteProject (the owner only): nothing comes back, so the title must be typed to confirm. */
export function DeleteProjectSection({ project }: { project: Project }) {
  const dialogs = useDialogs();
  const [, navigate] = useLocation();
  const refresh = useProjectRefresh(project.id);
  const remove = trpc.projects.delete.useMutation();
  const start = async () => {
    const typed = await dialogs.prompt({
      title: m.manage_delete_title({ project: project.title }),
      label: m.manage_delete_label(),
      confirmLabel: m.manage_delete_button(),
      validate: (value) => (value.trim() === project.title.trim() ? undefined : m.manage_delete_mismatch()),
    });
    if (typed === null) return;
    const deleted = await dialogs.attempt(() => remove.mutateAsync({ project: project.id }));
    if (!deleted) return;
    navigate(projectsHref);
    await refresh.all();
  };
  return (
    <section className="section section_danger" aria-labelledby="manage-delete">
      <h2 id="manage-delete">{m.manage_delete_heading()}</h2>
      <p>{m.manage_delete_text()}</p>
      <div className="actions">
        <button type="button" className="button button_danger" onClick={() => void start()}>
          {m.manage_delete_button()}
        </button>
      </div>
    </section>
  );
}
