import { useLocation } from 'wouter';
import { manage_leave_button } from '../../../../shared/i18n/paraglide/messages/manage_leave_button.js';
import { manage_leave_heading } from '../../../../shared/i18n/paraglide/messages/manage_leave_heading.js';
import { manage_leave_text } from '../../../../shared/i18n/paraglide/messages/manage_leave_text.js';
import { manage_leave_title } from '../../../../shared/i18n/paraglide/messages/manage_leave_title.js';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { trpc } from '../../../lib/trpc.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import { projectsHref } from '../links.ts';
import { useProjectRefresh } from './use-project-refresh.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { manage_leave_button, manage_leave_heading, manage_leave_text, manage_leave_title };

/** leaveProject: any member but the owner (who has no such action). */
export function LeaveSection({ project }: { project: Project }) {
  const dialogs = useDialogs();
  const [, navigate] = useLocation();
  const refresh = useProjectRefresh(project.id);
  const leave = trpc.projects.users.leave.useMutation();
  const start = async () => {
    const confirmed = await dialogs.confirm({
      title: m.manage_leave_title({ project: project.title }),
      message: m.manage_leave_text(),
      confirmLabel: m.manage_leave_button(),
      danger: true,
      defaultFocus: 'cancel',
    });
    if (!confirmed) return;
    const left = await dialogs.attempt(() => leave.mutateAsync({ project: project.id }));
    if (!left) return;
    navigate(projectsHref);
    await refresh.all();
  };
  return (
    <section className="section section_danger" aria-labelledby="manage-leave">
      <h2 id="manage-leave">{m.manage_leave_heading()}</h2>
      <p>{m.manage_leave_text()}</p>
      <div className="actions">
        <button type="button" className="button button_danger" onClick={() => void start()}>
          {m.manage_leave_button()}
        </button>
      </div>
    </section>
  );
}
