import { useId, useState } from 'react';
import { manage_approve } from '../../../../shared/i18n/paraglide/messages/manage_approve.js';
import { manage_owner } from '../../../../shared/i18n/paraglide/messages/manage_owner.js';
import { manage_pending } from '../../../../shared/i18n/paraglide/messages/manage_pending.js';
import { manage_remove } from '../../../../shared/i18n/paraglide/messages/manage_remove.js';
import { manage_remove_text } from '../../../../shared/i18n/paraglide/messages/manage_remove_text.js';
import { manage_remove_title } from '../../../../shared/i18n/paraglide/messages/manage_remove_title.js';
import { manage_role_of } from '../../../../shared/i18n/paraglide/messages/manage_role_of.js';
import { manage_you } from '../../../../shared/i18n/paraglide/messages/manage_you.js';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { useAuth } from '../../../lib/auth/auth.tsx';
import { trpc } from '../../../lib/trpc.ts';
import { projectRoleNames, type Project, type ProjectRole, type ProjectUser } from '../../../../shared/schemas/projects.ts';
import { roleLabel } from '../role-label.ts';
import { useProjectRefresh } from './use-project-refresh.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { manage_approve, manage_owner, manage_pending, manage_remove, manage_remove_text, manage_remove_title, manage_role_of, manage_you };

/** Admins first, like the server's ranking. */
const rolesHighFirst = [...projectRoleNames].reverse();

type MemberRowProps = { project: Project; member: ProjectUser; canSetUser: boolean };

/**
 * One member. Nobody changes or removes the owner, and the caller's own row has no controls either
 * (leaving is the Leave section's job, and demoting yourself by a slip of the select is too easy).
 */
export function MemberRow({ project, member, canSetUser }: MemberRowProps) {
  const auth = useAuth();
  const name = member.user.title;
  const isSelf = auth.user?.id === member.user.id;
  const hasControls = canSetUser && !member.isOwner && !isSelf;
  return (
    <li className="item manage_member" data-user-id={member.user.id}>
      <div className="item_main">
        <span className="item_title">{name}</span>
        {isSelf ? <span className="badge">{m.manage_you()}</span> : null}
        {member.isOwner ? <span className="badge manage_badge_owner">{m.manage_owner()}</span> : null}
        {member.pending ? <span className="badge manage_badge_pending">{m.manage_pending()}</span> : null}
        {hasControls ? null : <div className="manage_member_role">{roleLabel(member.role, false)}</div>}
      </div>
      {hasControls ? <MemberControls project={project} member={member} /> : null}
    </li>
  );
}

function MemberControls({ project, member }: { project: Project; member: ProjectUser }) {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const refresh = useProjectRefresh(project.id);
  const setUser = trpc.projects.users.set.useMutation();
  const selectId = useId();
  const name = member.user.title;
  // A pending member keeps the chosen role here until Approve; a member's select saves at once.
  const [approvalRole, setApprovalRole] = useState<ProjectRole>(member.role);
  // The role being saved shows at once (a controlled select would snap back until the reply).
  const [savingRole, setSavingRole] = useState<ProjectRole | undefined>();

  const save = async (role: ProjectRole | undefined) => {
    setSavingRole(role);
    const users = await dialogs.attempt(() => setUser.mutateAsync({ project: project.id, user: member.user.id, role }));
    if (users) utils.projects.users.list.setData({ project: project.id }, users);
    setSavingRole(undefined);
    await refresh.users();
  };
  const remove = async () => {
    const confirmed = await dialogs.confirm({
      title: m.manage_remove_title(),
      message: m.manage_remove_text({ name, project: project.title }),
      confirmLabel: m.manage_remove(),
      danger: true,
      defaultFocus: 'cancel',
    });
    if (confirmed) await save(undefined);
  };

  return (
    <div className="manage_member_controls">
      <label htmlFor={selectId} className="visually_hidden">
        {m.manage_role_of({ name })}
      </label>
      <select
        id={selectId}
        className="select"
        value={member.pending ? approvalRole : (savingRole ?? member.role)}
        disabled={setUser.isPending}
        onChange={(event) => {
          const role = event.currentTarget.value as ProjectRole;
          if (member.pending) setApprovalRole(role);
          else void save(role);
        }}
      >
        {rolesHighFirst.map((role) => (
          <option key={role} value={role}>
            {roleLabel(role, false)}
          </option>
        ))}
      </select>
      {member.pending ? (
        <button type="button" className="button button_primary" aria-label={`${m.manage_approve()}: ${name}`} disabled={setUser.isPending} onClick={() => void save(approvalRole)}>
          {m.manage_approve()}
        </button>
      ) : null}
      <button type="button" className="button button_quiet button_danger_text" aria-label={`${m.manage_remove()}: ${name}`} disabled={setUser.isPending} onClick={() => void remove()}>
        {m.manage_remove()}
      </button>
    </div>
  );
}
