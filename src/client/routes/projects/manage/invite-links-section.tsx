import { invite_link_created_text } from '../../../../shared/i18n/paraglide/messages/invite_link_created_text.js';
import { invite_link_created_title } from '../../../../shared/i18n/paraglide/messages/invite_link_created_title.js';
import { manage_invite_approval } from '../../../../shared/i18n/paraglide/messages/manage_invite_approval.js';
import { manage_invite_approval_admin } from '../../../../shared/i18n/paraglide/messages/manage_invite_approval_admin.js';
import { manage_invite_approval_immediate } from '../../../../shared/i18n/paraglide/messages/manage_invite_approval_immediate.js';
import { manage_invite_create } from '../../../../shared/i18n/paraglide/messages/manage_invite_create.js';
import { manage_invite_delete } from '../../../../shared/i18n/paraglide/messages/manage_invite_delete.js';
import { manage_invite_delete_text } from '../../../../shared/i18n/paraglide/messages/manage_invite_delete_text.js';
import { manage_invite_delete_title } from '../../../../shared/i18n/paraglide/messages/manage_invite_delete_title.js';
import { manage_invite_expires } from '../../../../shared/i18n/paraglide/messages/manage_invite_expires.js';
import { manage_invite_inactive } from '../../../../shared/i18n/paraglide/messages/manage_invite_inactive.js';
import { manage_invite_item } from '../../../../shared/i18n/paraglide/messages/manage_invite_item.js';
import { manage_invite_never } from '../../../../shared/i18n/paraglide/messages/manage_invite_never.js';
import { manage_invite_one_time } from '../../../../shared/i18n/paraglide/messages/manage_invite_one_time.js';
import { manage_invite_seats } from '../../../../shared/i18n/paraglide/messages/manage_invite_seats.js';
import { manage_invite_uses_unlimited } from '../../../../shared/i18n/paraglide/messages/manage_invite_uses_unlimited.js';
import { manage_invites_approval_intro } from '../../../../shared/i18n/paraglide/messages/manage_invites_approval_intro.js';
import { manage_invites_empty } from '../../../../shared/i18n/paraglide/messages/manage_invites_empty.js';
import { manage_invites_heading } from '../../../../shared/i18n/paraglide/messages/manage_invites_heading.js';
import { manage_invites_intro } from '../../../../shared/i18n/paraglide/messages/manage_invites_intro.js';
import { EmptyState, ErrorState, LoadingState } from '../../../components/states.tsx';
import { CreateInviteLinkDialog } from '../../../dialogs/create-invite-link-dialog.tsx';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { useLanguage } from '../../../lib/i18n/index.ts';
import { trpc } from '../../../lib/trpc.ts';
import { formatDateTime } from '../../../../shared/format/date.ts';
import type { CreatedInvite, Invite, Project } from '../../../../shared/schemas/projects.ts';
import { inviteUrl } from './invite-url.ts';
import { useProjectRefresh } from './use-project-refresh.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { invite_link_created_text, invite_link_created_title, manage_invite_approval, manage_invite_approval_admin, manage_invite_approval_immediate, manage_invite_create, manage_invite_delete, manage_invite_delete_text, manage_invite_delete_title, manage_invite_expires, manage_invite_inactive, manage_invite_item, manage_invite_never, manage_invite_one_time, manage_invite_seats, manage_invite_uses_unlimited, manage_invites_approval_intro, manage_invites_empty, manage_invites_heading, manage_invites_intro };

/** The project's invite links (createInvite), oldest first as the server lists them. */
export function InviteLinksSection({ project }: { project: Project }) {
  const dialogs = useDialogs();
  const refresh = useProjectRefresh(project.id);
  const invites = trpc.projects.invites.list.useQuery({ project: project.id });

  const startCreate = async () => {
    const created = await dialogs.open<CreatedInvite | null>((close) => <CreateInviteLinkDialog projectId={project.id} onClose={close} />);
    if (!created) return;
    void refresh.invites();
    await dialogs.copyText({ title: m.invite_link_created_title(), message: m.invite_link_created_text(), text: inviteUrl(created.token) });
  };

  return (
    <section className="section" aria-labelledby="manage-invites">
      <h2 id="manage-invites">{m.manage_invites_heading()}</h2>
      <p className="section_intro">{m.manage_invites_intro()}</p>
      <p className="section_intro">{m.manage_invites_approval_intro()}</p>
      {invites.isPending ? <LoadingState /> : null}
      {invites.error ? <ErrorState error={invites.error} onRetry={() => void invites.refetch()} /> : null}
      {invites.data && invites.data.length === 0 ? <EmptyState icon="links">{m.manage_invites_empty()}</EmptyState> : null}
      {invites.data && invites.data.length > 0 ? (
        <ul className="item_list" aria-labelledby="manage-invites">
          {invites.data.map((invite) => (
            <InviteRow key={invite.id} project={project} invite={invite} />
          ))}
        </ul>
      ) : null}
      <div className="actions">
        <button type="button" className="button button_primary" onClick={() => void startCreate()}>
          {m.manage_invite_create()}
        </button>
      </div>
    </section>
  );
}

/** Expired or out of seats: the server refuses it (not_found), so say so rather than let it look live. */
function isUsable(invite: Invite, now = Date.now()): boolean {
  if (invite.expires && Date.parse(invite.expires) <= now) return false;
  return invite.seats === null || invite.uses < invite.seats;
}

function InviteRow({ project, invite }: { project: Project; invite: Invite }) {
  const dialogs = useDialogs();
  const { language } = useLanguage();
  const refresh = useProjectRefresh(project.id);
  const remove = trpc.projects.invites.delete.useMutation();
  const title = m.manage_invite_item({ date: formatDateTime(invite.created, language) });
  const seats = invite.seats === null ? m.manage_invite_uses_unlimited({ uses: String(invite.uses) }) : `${invite.uses}/${invite.seats}`;

  const startDelete = async () => {
    const confirmed = await dialogs.confirm({
      title: m.manage_invite_delete_title(),
      message: m.manage_invite_delete_text(),
      confirmLabel: m.manage_invite_delete(),
      danger: true,
      defaultFocus: 'cancel',
    });
    if (!confirmed) return;
    await dialogs.attempt(() => remove.mutateAsync({ project: project.id, invite: invite.id }));
    await refresh.invites();
  };

  return (
    <li className="item" data-invite-id={invite.id}>
      <div className="item_main">
        <span className="item_title">{title}</span>
        {invite.oneTime ? <span className="badge">{m.manage_invite_one_time()}</span> : null}
        {isUsable(invite) ? null : <span className="badge manage_badge_inactive">{m.manage_invite_inactive()}</span>}
        <dl className="item_facts">
          <div>
            <dt>{m.manage_invite_expires()}</dt>
            <dd data-fact="expires">{invite.expires ? formatDateTime(invite.expires, language) : m.manage_invite_never()}</dd>
          </div>
          <div>
            <dt>{m.manage_invite_approval()}</dt>
            <dd data-fact="approval">{invite.approved ? m.manage_invite_approval_immediate() : m.manage_invite_approval_admin()}</dd>
          </div>
          <div>
            <dt>{m.manage_invite_seats()}</dt>
            <dd data-fact="seats">{seats}</dd>
          </div>
        </dl>
      </div>
      <button type="button" className="button button_quiet button_danger_text" aria-label={`${m.manage_invite_delete()}: ${title}`} onClick={() => void startDelete()}>
        {m.manage_invite_delete()}
      </button>
    </li>
  );
}
