import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { nav_sign_in } from '../../paraglide/messages/nav_sign_in.js';
import { not_found_home } from '../../paraglide/messages/not_found_home.js';
import { oauth_already_registered } from '../../paraglide/messages/oauth_already_registered.js';
import { oauth_attempt_expired } from '../../paraglide/messages/oauth_attempt_expired.js';
import { oauth_failed } from '../../paraglide/messages/oauth_failed.js';
import { oauth_linked_to_another_user } from '../../paraglide/messages/oauth_linked_to_another_user.js';
import { oauth_no_account } from '../../paraglide/messages/oauth_no_account.js';
import { oauth_provider_refused } from '../../paraglide/messages/oauth_provider_refused.js';
import { oauth_link_only } from '../../paraglide/messages/oauth_link_only.js';
import { oauth_provider_unavailable } from '../../paraglide/messages/oauth_provider_unavailable.js';
import { oauth_title } from '../../paraglide/messages/oauth_title.js';
import { oauth_working } from '../../paraglide/messages/oauth_working.js';
import { homeCrumb, Page } from '../../components/page.tsx';
import { providerName } from '../../components/provider-mark.tsx';
import { ErrorState, LoadingState } from '../../components/states.tsx';
import { api } from '../../lib/api.ts';
import { useAuth, type Auth } from '../../lib/auth/auth.tsx';
import { finishExternalAuth, takeExternalAuth, type ExternalAuthCalls } from '../../lib/auth/external-auth.ts';
import { takeReturnTo } from '../../lib/auth/return-to.ts';
import { toDisplayError } from '../../lib/errors.ts';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import { routes } from '../../../shared/api/routes.ts';
import type { Session } from '../../../shared/schemas/auth.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { nav_sign_in, not_found_home, oauth_already_registered, oauth_attempt_expired, oauth_failed, oauth_link_only, oauth_linked_to_another_user, oauth_no_account, oauth_provider_refused, oauth_provider_unavailable, oauth_title, oauth_working };

/** The finishing calls over REST (src/shared/api): sign-in and registration set the session cookie. */
const restCalls: ExternalAuthCalls = {
  finish: (query) => api.call(routes.auth.externalFinish, { query }),
  signIn: (token) => api.call(routes.auth.signInExternal, { query: { token } }),
  register: (token) => api.call(routes.auth.registerExternal, { query: { token } }),
  link: (token) => api.call(routes.me.linkCredential, { query: { token } }),
};

/**
 * One finishing run per return address: React's development StrictMode runs effects twice, and the
 * stored token and the provider's code are single-use. Forgotten once settled.
 */
let running: { keys: string[]; promise: Promise<string> } | undefined;

function finishOnce(auth: Auth): Promise<string> {
  const key = location.href;
  if (running?.keys.includes(key)) return running.promise;
  const url = new URL(key);
  const stored = takeExternalAuth();
  // The code and token are spent now: keep them out of the history and any later copy of the address.
  history.replaceState(history.state, '', '/oauth');
  const promise = (async () => {
    const flow = await finishExternalAuth(stored, url, restCalls);
    // Spec §4: the session is fetched again after success (a link keeps the same session).
    await auth.refreshSession(flow.outcome === 'link' ? undefined : (flow.reply as Session));
    // The sign-in screens' remembered page is served by the stored return path now.
    if (flow.outcome !== 'link') takeReturnTo();
    return flow.next;
  })();
  // The effect's second run (StrictMode) sees the cleaned address: the same visit.
  running = { keys: [key, location.href], promise };
  const forget = () => {
    if (running?.promise === promise) running = undefined;
  };
  promise.then(forget, forget);
  return promise;
}

/**
 * Spec §2 'oauth': where a provider sends the browser back after an external sign-in (spec §4, §5).
 * Reachable without signing in on an instance that requires it (routes.ts marks it public).
 */
export default function OauthPage() {
  const auth = useAuth();
  const [, navigate] = useLocation();
  const [failure, setFailure] = useState<{ error: unknown } | undefined>();

  useEffect(() => {
    let active = true;
    finishOnce(auth).then(
      (next) => {
        if (active) navigate(next, { replace: true });
      },
      (error: unknown) => {
        if (active) setFailure({ error });
      },
    );
    return () => {
      active = false;
    };
    // Runs once per visit: the return address is read when the page opens.
  }, []);

  return (
    <Page title={m.oauth_title()} breadcrumb={[homeCrumb(), { label: m.oauth_title() }]} pageClass="page_oauth">
      <h1>{m.oauth_title()}</h1>
      {failure ? (
        <>
          <ErrorState error={failure.error} title={m.oauth_failed()} />
          <FailureHint error={failure.error} />
          <p className="actions oauth_links">
            <Link href="/">{m.not_found_home()}</Link>
            {auth.user ? null : <Link href="/login">{m.nav_sign_in()}</Link>}
          </p>
        </>
      ) : (
        <LoadingState label={m.oauth_working()} />
      )}
    </Page>
  );
}

/** What to do about the server's refusals that have a reason (details.reason), in the user's words. */
const reasonTexts: Record<string, (inputs: { provider: string }) => string> = {
  no_account: m.oauth_no_account,
  linked_to_another_user: m.oauth_linked_to_another_user,
  already_registered: m.oauth_already_registered,
  sign_in_attempt_expired: () => m.oauth_attempt_expired(),
  provider_refused: m.oauth_provider_refused,
  invalid_assertion: m.oauth_provider_refused,
  provider_unavailable: m.oauth_provider_unavailable,
  link_only: m.oauth_link_only,
};

function FailureHint({ error }: { error: unknown }) {
  const details = toDisplayError(error).details as { reason?: unknown; provider?: unknown } | undefined;
  const reason = typeof details?.reason === 'string' && Object.hasOwn(reasonTexts, details.reason) ? details.reason : undefined;
  if (!reason) return null;
  const provider = typeof details?.provider === 'string' ? providerName(details.provider) : '';
  return (
    <p className="oauth_hint" data-reason={reason}>
      {rich(reasonTexts[reason]!({ provider: slot('provider') }), { provider: <bdi>{provider}</bdi> })}
    </p>
  );
}
