import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { invite_page_already_member } from '../../../shared/i18n/paraglide/messages/invite_page_already_member.js';
import { invite_page_awaiting } from '../../../shared/i18n/paraglide/messages/invite_page_awaiting.js';
import { invite_page_my_projects } from '../../../shared/i18n/paraglide/messages/invite_page_my_projects.js';
import { invite_page_open_project } from '../../../shared/i18n/paraglide/messages/invite_page_open_project.js';
import { invite_page_pending } from '../../../shared/i18n/paraglide/messages/invite_page_pending.js';
import { invite_page_unusable_ask } from '../../../shared/i18n/paraglide/messages/invite_page_unusable_ask.js';
import { invite_page_unusable_expired } from '../../../shared/i18n/paraglide/messages/invite_page_unusable_expired.js';
import { invite_page_unusable_heading } from '../../../shared/i18n/paraglide/messages/invite_page_unusable_heading.js';
import { invite_page_unusable_unknown } from '../../../shared/i18n/paraglide/messages/invite_page_unusable_unknown.js';
import { invite_page_unusable_used } from '../../../shared/i18n/paraglide/messages/invite_page_unusable_used.js';
import { LoadingState } from '../../components/states.tsx';
import { trpc } from '../../lib/trpc.ts';
import { refusalReasonOf } from '../../../shared/refusal-reasons.ts';
import { projectHref, projectsHref } from '../projects/links.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  invite_page_already_member,
  invite_page_awaiting,
  invite_page_my_projects,
  invite_page_open_project,
  invite_page_pending,
  invite_page_unusable_ask,
  invite_page_unusable_expired,
  invite_page_unusable_heading,
  invite_page_unusable_unknown,
  invite_page_unusable_used,
};

export type UnusableReason = 'unknown' | 'expired' | 'used_up';

/**
 * The server refuses unknown, expired and used-up invites alike with not_found and says which in
 * details.reason; the screen shows the matching text in the user's language.
 */
export function unusableReasonOf(error: unknown): UnusableReason {
  const reason = refusalReasonOf((error as { data?: { details?: unknown } } | null)?.data?.details);
  return reason === 'expired' || reason === 'used_up' ? reason : 'unknown';
}

function unusableText(reason: UnusableReason) {
  switch (reason) {
    case 'unknown':
      return m.invite_page_unusable_unknown();
    case 'expired':
      return m.invite_page_unusable_expired();
    case 'used_up':
      return m.invite_page_unusable_used();
  }
}

export function UnusableInvite({ reason }: { reason: UnusableReason }) {
  return (
    <section className="section invite_unusable" aria-labelledby="invite-unusable" data-reason={reason}>
      <h2 id="invite-unusable">{m.invite_page_unusable_heading()}</h2>
      <p role="alert">{unusableText(reason)}</p>
      <p>{m.invite_page_unusable_ask()}</p>
    </section>
  );
}

function Outcome({ children, link }: { children: ReactNode; link: ReactNode }) {
  return (
    <div className="invite_outcome">
      <p className="notice" role="status">
        {children}
      </p>
      <div className="actions">{link}</div>
    </div>
  );
}

/** Joined through an invite that needs an admin's approval (spec §5: an admin approves by giving a role). */
export function PendingApproval({ projectTitle, justJoined }: { projectTitle: string; justJoined: boolean }) {
  return (
    <Outcome
      link={
        <Link href={projectsHref} className="button">
          {m.invite_page_my_projects()}
        </Link>
      }
    >
      {justJoined ? m.invite_page_pending({ project: projectTitle }) : m.invite_page_awaiting({ project: projectTitle })}
    </Outcome>
  );
}

/**
 * 'Already a member'. The invite view says so for pending invitees too; the project itself tells the
 * two apart (a pending invitee cannot open it yet).
 */
export function AlreadyMember({ projectId, projectTitle }: { projectId: string; projectTitle: string }) {
  const project = trpc.projects.get.useQuery({ project: projectId }, { retry: false });
  if (project.isPending) return <LoadingState />;
  const role = project.data?.userRole;
  if (!role || role === 'starred') return <PendingApproval projectTitle={projectTitle} justJoined={false} />;
  return (
    <Outcome
      link={
        <Link href={projectHref(projectId)} className="button button_primary">
          {m.invite_page_open_project()}
        </Link>
      }
    >
      {m.invite_page_already_member({ project: projectTitle })}
    </Outcome>
  );
}
