import { me_session_browser } from '../../../shared/i18n/paraglide/messages/me_session_browser.js';
import { me_session_count_one } from '../../../shared/i18n/paraglide/messages/me_session_count_one.js';
import { me_session_count_other } from '../../../shared/i18n/paraglide/messages/me_session_count_other.js';
import { me_session_current } from '../../../shared/i18n/paraglide/messages/me_session_current.js';
import { me_session_expires } from '../../../shared/i18n/paraglide/messages/me_session_expires.js';
import { me_session_last_used } from '../../../shared/i18n/paraglide/messages/me_session_last_used.js';
import { me_session_never } from '../../../shared/i18n/paraglide/messages/me_session_never.js';
import { me_session_revoke } from '../../../shared/i18n/paraglide/messages/me_session_revoke.js';
import { me_session_revoke_text } from '../../../shared/i18n/paraglide/messages/me_session_revoke_text.js';
import { me_session_revoke_title } from '../../../shared/i18n/paraglide/messages/me_session_revoke_title.js';
import { me_session_started } from '../../../shared/i18n/paraglide/messages/me_session_started.js';
import { me_sessions_empty } from '../../../shared/i18n/paraglide/messages/me_sessions_empty.js';
import { me_sessions_heading } from '../../../shared/i18n/paraglide/messages/me_sessions_heading.js';
import { me_sessions_intro } from '../../../shared/i18n/paraglide/messages/me_sessions_intro.js';
import { me_token_created } from '../../../shared/i18n/paraglide/messages/me_token_created.js';
import { me_token_never_used } from '../../../shared/i18n/paraglide/messages/me_token_never_used.js';
import { EmptyState, ErrorState, LoadingState } from '../../components/states.tsx';
import { useDialogs } from '../../dialogs/dialog-provider.tsx';
import { useLanguage } from '../../lib/i18n/index.ts';
import { trpc } from '../../lib/trpc.ts';
import { formatDateTime } from '../../../shared/format/date.ts';
import { plural } from '../../../shared/format/plural.ts';
import type { SessionItem } from '../../../shared/schemas/users.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { me_session_browser, me_session_count_one, me_session_count_other, me_session_current, me_session_expires, me_session_last_used, me_session_never, me_session_revoke, me_session_revoke_text, me_session_revoke_title, me_session_started, me_sessions_empty, me_sessions_heading, me_sessions_intro, me_token_created, me_token_never_used };

/** Browser sessions (requireSession); API tokens have their own section. */
export function SessionsSection() {
  const sessions = trpc.users.sessions.list.useQuery();
  const browserSessions = sessions.data?.filter((session) => session.requireSession) ?? [];
  return (
    <section className="section" aria-labelledby="me-sessions">
      <h2 id="me-sessions">{m.me_sessions_heading()}</h2>
      <p className="section_intro">
        {m.me_sessions_intro()} {sessions.data ? <span className="count">{plural(browserSessions.length, m.me_session_count_one, m.me_session_count_other)}</span> : null}
      </p>
      {sessions.isPending ? <LoadingState /> : null}
      {sessions.error ? <ErrorState error={sessions.error} onRetry={() => void sessions.refetch()} /> : null}
      {sessions.data && browserSessions.length === 0 ? <EmptyState>{m.me_sessions_empty()}</EmptyState> : null}
      {browserSessions.length > 0 ? (
        <ul className="item_list" aria-labelledby="me-sessions">
          {browserSessions.map((session) => (
            <SessionRow key={session.id} session={session} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function SessionRow({ session }: { session: SessionItem }) {
  const dialogs = useDialogs();
  const { language } = useLanguage();
  const utils = trpc.useUtils();
  const revoke = trpc.users.sessions.revoke.useMutation();
  const startRevoke = async () => {
    const confirmed = await dialogs.confirm({ title: m.me_session_revoke_title(), message: m.me_session_revoke_text(), confirmLabel: m.me_session_revoke(), danger: true, defaultFocus: 'cancel' });
    if (!confirmed) return;
    await dialogs.attempt(() => revoke.mutateAsync({ session: session.id }));
    await utils.users.sessions.list.invalidate();
  };
  return (
    <li className="item" data-session-id={session.id}>
      <div className="item_main">
        <span className="item_title">{session.title ?? m.me_session_browser()}</span>
        {session.isCurrent ? <span className="badge">{m.me_session_current()}</span> : null}
        <SessionDates session={session} language={language} />
      </div>
      {session.isCurrent ? null : (
        <button type="button" className="button button_quiet" onClick={() => void startRevoke()} aria-label={`${m.me_session_revoke()}: ${session.title ?? m.me_session_browser()} ${formatDateTime(session.started, language)}`}>
          {m.me_session_revoke()}
        </button>
      )}
    </li>
  );
}

/** A browser session was started (signed in); an API token was created, and is unused until its first request. */
export function SessionDates({ session, language }: { session: SessionItem; language: string }) {
  return (
    <dl className="item_facts">
      <div>
        <dt>{session.requireSession ? m.me_session_started() : m.me_token_created()}</dt>
        <dd>
          <time dateTime={session.started}>{formatDateTime(session.started, language)}</time>
        </dd>
      </div>
      <div>
        <dt>{m.me_session_last_used()}</dt>
        <dd>{session.lastUsed ? <time dateTime={session.lastUsed}>{formatDateTime(session.lastUsed, language)}</time> : m.me_token_never_used()}</dd>
      </div>
      <div>
        <dt>{m.me_session_expires()}</dt>
        <dd>{session.expiration ? <time dateTime={session.expiration}>{formatDateTime(session.expiration, language)}</time> : m.me_session_never()}</dd>
      </div>
    </dl>
  );
}
