import { manage_members_count_one } from '../../../../shared/i18n/paraglide/messages/manage_members_count_one.js';
import { manage_members_count_other } from '../../../../shared/i18n/paraglide/messages/manage_members_count_other.js';
import { manage_members_heading } from '../../../../shared/i18n/paraglide/messages/manage_members_heading.js';
import { manage_members_pending_intro } from '../../../../shared/i18n/paraglide/messages/manage_members_pending_intro.js';
import { ErrorState, LoadingState } from '../../../components/states.tsx';
import { trpc } from '../../../lib/trpc.ts';
import { plural } from '../../../../shared/format/plural.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import { can } from '../project-frame.tsx';
import { MemberRow } from './member-row.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { manage_members_count_one, manage_members_count_other, manage_members_heading, manage_members_pending_intro };

/** The team in the server's order (owner, then role rank, then name); controls only with setUser. */
export function MembersSection({ project }: { project: Project }) {
  const users = trpc.projects.users.list.useQuery({ project: project.id });
  const canSetUser = can(project, 'setUser');
  return (
    <section className="section" aria-labelledby="manage-members">
      <h2 id="manage-members">{m.manage_members_heading()}</h2>
      {canSetUser ? <p className="section_intro">{m.manage_members_pending_intro()}</p> : null}
      {users.data ? (
        <p className="section_count" data-testid="members-count">
          <span className="count">{plural(users.data.length, m.manage_members_count_one, m.manage_members_count_other)}</span>
        </p>
      ) : null}
      {users.isPending ? <LoadingState /> : null}
      {users.error ? <ErrorState error={users.error} onRetry={() => void users.refetch()} /> : null}
      {users.data ? (
        <ul className="item_list manage_members" aria-labelledby="manage-members">
          {users.data.map((member) => (
            <MemberRow key={member.user.id} project={project} member={member} canSetUser={canSetUser} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}
