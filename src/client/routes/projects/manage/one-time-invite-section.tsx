import { manage_onetime_create } from '../../../../shared/i18n/paraglide/messages/manage_onetime_create.js';
import { manage_onetime_created_text } from '../../../../shared/i18n/paraglide/messages/manage_onetime_created_text.js';
import { manage_onetime_created_title } from '../../../../shared/i18n/paraglide/messages/manage_onetime_created_title.js';
import { manage_onetime_heading } from '../../../../shared/i18n/paraglide/messages/manage_onetime_heading.js';
import { manage_onetime_intro } from '../../../../shared/i18n/paraglide/messages/manage_onetime_intro.js';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { trpc } from '../../../lib/trpc.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import { inviteUrl } from './invite-url.ts';
import { useProjectRefresh } from './use-project-refresh.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { manage_onetime_create, manage_onetime_created_text, manage_onetime_created_title, manage_onetime_heading, manage_onetime_intro };

/** Spec §9 one-time invite: approved, 24 hours, one seat (the server applies all three). */
export function OneTimeInviteSection({ project }: { project: Project }) {
  const dialogs = useDialogs();
  const refresh = useProjectRefresh(project.id);
  const create = trpc.projects.invites.create.useMutation();
  const start = async () => {
    const created = await dialogs.attempt(() => create.mutateAsync({ project: project.id, oneTime: true }));
    if (!created) return;
    void refresh.invites();
    await dialogs.copyText({ title: m.manage_onetime_created_title(), message: m.manage_onetime_created_text(), text: inviteUrl(created.token) });
  };
  return (
    <section className="section" aria-labelledby="manage-onetime">
      <h2 id="manage-onetime">{m.manage_onetime_heading()}</h2>
      <p className="section_intro">{m.manage_onetime_intro()}</p>
      <div className="actions">
        <button type="button" className="button" aria-disabled={create.isPending ? true : undefined} onClick={() => void (create.isPending ? undefined : start())}>
          {m.manage_onetime_create()}
        </button>
      </div>
    </section>
  );
}
