import { useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { invite_page_expires } from '../../../shared/i18n/paraglide/messages/invite_page_expires.js';
import { invite_page_heading } from '../../../shared/i18n/paraglide/messages/invite_page_heading.js';
import { invite_page_invited } from '../../../shared/i18n/paraglide/messages/invite_page_invited.js';
import { invite_page_join } from '../../../shared/i18n/paraglide/messages/invite_page_join.js';
import { invite_page_joining } from '../../../shared/i18n/paraglide/messages/invite_page_joining.js';
import { invite_page_missing_token } from '../../../shared/i18n/paraglide/messages/invite_page_missing_token.js';
import { invite_page_needs_approval } from '../../../shared/i18n/paraglide/messages/invite_page_needs_approval.js';
import { invite_page_register } from '../../../shared/i18n/paraglide/messages/invite_page_register.js';
import { invite_page_sign_in } from '../../../shared/i18n/paraglide/messages/invite_page_sign_in.js';
import { invite_page_sign_in_hint } from '../../../shared/i18n/paraglide/messages/invite_page_sign_in_hint.js';
import { invite_page_title } from '../../../shared/i18n/paraglide/messages/invite_page_title.js';
import { homeCrumb, Page } from '../../components/page.tsx';
import { ErrorState, LoadingState } from '../../components/states.tsx';
import { useDialogs } from '../../dialogs/dialog-provider.tsx';
import { useAuth } from '../../lib/auth/auth.tsx';
import { rememberReturnTo } from '../../lib/auth/return-to.ts';
import { toDisplayError } from '../../lib/errors.ts';
import { useLanguage } from '../../lib/i18n/react.tsx';
import { trpc } from '../../lib/trpc.ts';
import { formatDateTime } from '../../../shared/format/date.ts';
import type { InviteView } from '../../../shared/schemas/projects.ts';
import { projectHref } from '../projects/links.ts';
import type { ViewProps } from '../routes.ts';
import { AlreadyMember, PendingApproval, UnusableInvite, unusableReasonOf, type UnusableReason } from './invite-states.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  invite_page_expires,
  invite_page_heading,
  invite_page_invited,
  invite_page_join,
  invite_page_joining,
  invite_page_missing_token,
  invite_page_needs_approval,
  invite_page_register,
  invite_page_sign_in,
  invite_page_sign_in_hint,
  invite_page_title,
};

/** Spec §2 invite?token=…: who invites you where; join (only when not a member yet, spec §5). */
export default function InvitePage(_props: ViewProps) {
  const token = new URLSearchParams(useSearch()).get('token')?.trim() ?? '';
  return (
    <Page title={m.invite_page_title()} breadcrumb={[homeCrumb(), { label: m.invite_page_title() }]} pageClass="page_invite">
      <h1>{m.invite_page_heading()}</h1>
      {token ? (
        <InviteByToken token={token} />
      ) : (
        <p className="notice invite_missing_token" role="alert">
          {m.invite_page_missing_token()}
        </p>
      )}
    </Page>
  );
}

function InviteByToken({ token }: { token: string }) {
  const auth = useAuth();
  const view = trpc.projects.invites.view.useQuery({ token }, { retry: false, refetchOnWindowFocus: false });
  if (view.error) {
    if (toDisplayError(view.error).code === 'not_found') return <UnusableInvite reason={unusableReasonOf(view.error)} />;
    return <ErrorState error={view.error} onRetry={() => void view.refetch()} />;
  }
  if (!view.data) return <LoadingState />;
  if (auth.status !== 'authenticated') return <SignInToAccept invite={view.data} />;
  if (view.data.alreadyMember) return <AlreadyMember projectId={view.data.projectId} projectTitle={view.data.projectTitle} />;
  return <JoinInvite invite={view.data} />;
}

function InviteSummary({ invite }: { invite: InviteView }) {
  const { language } = useLanguage();
  return (
    <>
      <p className="invite_invited">{m.invite_page_invited({ project: invite.projectTitle })}</p>
      {invite.approved ? null : <p className="field_hint">{m.invite_page_needs_approval()}</p>}
      {invite.expires ? <p className="field_hint">{m.invite_page_expires({ date: formatDateTime(invite.expires, language) })}</p> : null}
    </>
  );
}

/** Visitors sign in or register first and come back to this page, token included. */
function SignInToAccept({ invite }: { invite: InviteView }) {
  return (
    <section className="section invite_card" aria-labelledby="invite-project">
      <h2 id="invite-project">{invite.projectTitle}</h2>
      <InviteSummary invite={invite} />
      <p>{m.invite_page_sign_in_hint()}</p>
      <div className="actions">
        <Link href="/login" className="button button_primary" onClick={() => rememberReturnTo()}>
          {m.invite_page_sign_in()}
        </Link>
        <Link href="/register" className="button" onClick={() => rememberReturnTo()}>
          {m.invite_page_register()}
        </Link>
      </div>
    </section>
  );
}

type JoinOutcome = { kind: 'pending' } | { kind: 'already_member' } | { kind: 'unusable'; reason: UnusableReason };

function JoinInvite({ invite }: { invite: InviteView }) {
  const [, navigate] = useLocation();
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const join = trpc.projects.invites.join.useMutation();
  const [outcome, setOutcome] = useState<JoinOutcome | null>(null);

  const submit = async () => {
    if (join.isPending) return;
    try {
      const joined = await join.mutateAsync({ token: invite.token });
      await utils.projects.mine.invalidate();
      if (joined.pending) setOutcome({ kind: 'pending' });
      else navigate(projectHref(joined.projectId));
    } catch (error) {
      const code = toDisplayError(error).code;
      if (code === 'already_member') setOutcome({ kind: 'already_member' });
      else if (code === 'not_found') setOutcome({ kind: 'unusable', reason: unusableReasonOf(error) });
      else await dialogs.error(error);
    }
  };

  if (outcome?.kind === 'pending') return <PendingApproval projectTitle={invite.projectTitle} justJoined />;
  if (outcome?.kind === 'already_member') return <AlreadyMember projectId={invite.projectId} projectTitle={invite.projectTitle} />;
  if (outcome?.kind === 'unusable') return <UnusableInvite reason={outcome.reason} />;
  return (
    <section className="section invite_card" aria-labelledby="invite-project">
      <h2 id="invite-project">{invite.projectTitle}</h2>
      <InviteSummary invite={invite} />
      <div className="actions">
        <button type="button" className="button button_primary" aria-disabled={join.isPending ? true : undefined} onClick={() => void submit()}>
          {join.isPending ? m.invite_page_joining() : m.invite_page_join()}
        </button>
      </div>
    </section>
  );
}
