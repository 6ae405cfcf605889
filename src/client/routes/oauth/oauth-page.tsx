import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { auth_redirecting } from '../../../shared/i18n/paraglide/messages/auth_redirecting.js';
import { nav_sign_in } from '../../../shared/i18n/paraglide/messages/nav_sign_in.js';
import { not_found_home } from '../../../shared/i18n/paraglide/messages/not_found_home.js';
import { oauth_already_registered } from '../../../shared/i18n/paraglide/messages/oauth_already_registered.js';
import { oauth_attempt_expired } from '../../../shared/i18n/paraglide/messages/oauth_attempt_expired.js';
import { oauth_cancelled } from '../../../shared/i18n/paraglide/messages/oauth_cancelled.js';
import { oauth_failed } from '../../../shared/i18n/paraglide/messages/oauth_failed.js';
import { oauth_linked_to_another_user } from '../../../shared/i18n/paraglide/messages/oauth_linked_to_another_user.js';
import { oauth_no_account } from '../../../shared/i18n/paraglide/messages/oauth_no_account.js';
import { oauth_provider_refused } from '../../../shared/i18n/paraglide/messages/oauth_provider_refused.js';
import { oauth_link_only } from '../../../shared/i18n/paraglide/messages/oauth_link_only.js';
import { oauth_provider_unavailable } from '../../../shared/i18n/paraglide/messages/oauth_provider_unavailable.js';
import { oauth_register_with } from '../../../shared/i18n/paraglide/messages/oauth_register_with.js';
import { oauth_title } from '../../../shared/i18n/paraglide/messages/oauth_title.js';
import { oauth_try_again } from '../../../shared/i18n/paraglide/messages/oauth_try_again.js';
import { oauth_working } from '../../../shared/i18n/paraglide/messages/oauth_working.js';
import { homeCrumb, Page } from '../../components/page.tsx';
import { providerName } from '../../components/provider-mark.tsx';
import { ErrorState, LoadingState } from '../../components/states.tsx';
import { openAuthDialog } from '../../dialogs/auth-dialog.tsx';
import { useDialogs } from '../../dialogs/dialog-provider.tsx';
import { useAuth, type Auth } from '../../lib/auth/auth.tsx';
import { finishExternalAuth, isFinishParamsProblem, takeExternalAuth, type ExternalAuthCalls, type FinishParamsProblem, type StoredExternalAuth } from '../../lib/auth/external-auth.ts';
import { takeReturnTo } from '../../lib/auth/return-to.ts';
import { startExternalAuth } from '../../lib/auth/start-external.ts';
import { toDisplayError } from '../../lib/errors.ts';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import { useInstance } from '../../lib/instance.ts';
import { trpc } from '../../lib/trpc.ts';
import type { Session } from '../../../shared/schemas/auth.ts';
import { isRefusalReason, type RefusalReason } from '../../../shared/refusal-reasons.ts';
import { signInProviderIds, type ExternalIntent, type SignInProviderId } from '../../../shared/schemas/external-auth.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  auth_redirecting,
  nav_sign_in,
  not_found_home,
  oauth_already_registered,
  oauth_attempt_expired,
  oauth_cancelled,
  oauth_failed,
  oauth_link_only,
  oauth_linked_to_another_user,
  oauth_no_account,
  oauth_provider_refused,
  oauth_provider_unavailable,
  oauth_register_with,
  oauth_title,
  oauth_try_again,
  oauth_working,
};

type TrpcUtils = ReturnType<typeof trpc.useUtils>;

/**
 * The finishing calls over tRPC: sign-in and registration set the session cookie (their procedures do,
 * for this site's own pages only); a link refreshes the credentials /me lists.
 */
function finishingCalls(utils: TrpcUtils): ExternalAuthCalls {
  const { client } = utils;
  return {
    finish: (query) => client.auth.externalFinish.mutate(query),
    signIn: (token) => client.auth.signInExternal.mutate({ token }),
    register: (token) => client.auth.registerExternal.mutate({ token }),
    link: async (token) => {
      const linked = await client.users.linkCredential.mutate({ token });
      await utils.users.credentials.invalidate();
      return linked;
    },
  };
}

/** A finishing step that failed, with what the start step had stored (its provider, intent and return page), if anything. */
type Failure = { error: unknown; stored: StoredExternalAuth | undefined };
type Outcome = { next: string } | { failure: Failure };

/**
 * One finishing run per return address: React's development StrictMode runs effects twice, and the
 * stored token and the provider's code are single-use. Forgotten once settled.
 */
let running: { keys: string[]; promise: Promise<Outcome> } | undefined;

function finishOnce(auth: Auth, calls: ExternalAuthCalls): Promise<Outcome> {
  const key = location.href;
  if (running?.keys.includes(key)) return running.promise;
  const url = new URL(key);
  const stored = takeExternalAuth();
  // The code and token are spent now: keep them out of the history and any later copy of the address.
  history.replaceState(history.state, '', '/oauth');
  const promise = (async (): Promise<Outcome> => {
    try {
      const flow = await finishExternalAuth(stored, url, calls);
      // Spec §4: the session is fetched again after success (a link keeps the same session).
      await auth.refreshSession(flow.outcome === 'link' ? undefined : (flow.reply as Session));
      // The sign-in screens' remembered page is served by the stored return path now.
      if (flow.outcome !== 'link') takeReturnTo();
      return { next: flow.next };
    } catch (error) {
      return { failure: { error, stored } };
    }
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
  const utils = trpc.useUtils();
  const [, navigate] = useLocation();
  const [failure, setFailure] = useState<Failure | undefined>();

  useEffect(() => {
    let active = true;
    void finishOnce(auth, finishingCalls(utils)).then((outcome) => {
      if (!active) return;
      if ('next' in outcome) navigate(outcome.next, { replace: true });
      else setFailure(outcome.failure);
    });
    return () => {
      active = false;
    };
    // Runs once per visit: the return address is read when the page opens.
  }, []);

  return (
    <Page title={m.oauth_title()} breadcrumb={[homeCrumb(), { label: m.oauth_title() }]} pageClass="page_oauth">
      <h1>{m.oauth_title()}</h1>
      {failure ? <FailureView failure={failure} /> : <LoadingState label={m.oauth_working()} />}
    </Page>
  );
}

/** The next step a refusal offers: the provider's sign-up, or the same sign-in again. */
type NextStep = 'register' | 'retry';

/**
 * The refusals with a reason (details.reason: the server's, or finishParams' for a return address that
 * cannot finish), said as what happened, in the provider's terms, with what to do next. A refusal
 * without a known reason shows the catalogued error.
 */
const reasons: Partial<Record<RefusalReason | FinishParamsProblem, { text: (inputs: { provider: string; appName: string }) => string; next?: NextStep }>> = {
  no_account: { text: m.oauth_no_account, next: 'register' },
  linked_to_another_user: { text: m.oauth_linked_to_another_user },
  already_registered: { text: m.oauth_already_registered },
  sign_in_attempt_expired: { text: () => m.oauth_attempt_expired(), next: 'retry' },
  state_mismatch: { text: () => m.oauth_attempt_expired(), next: 'retry' },
  nothing_stored: { text: () => m.oauth_attempt_expired(), next: 'retry' },
  no_code: { text: m.oauth_cancelled, next: 'retry' },
  provider_refused: { text: m.oauth_provider_refused, next: 'retry' },
  invalid_assertion: { text: m.oauth_provider_refused, next: 'retry' },
  provider_unavailable: { text: m.oauth_provider_unavailable, next: 'retry' },
  link_only: { text: m.oauth_link_only },
};

/** The failure's reason when this page has words for it: the server's (the shared list) or finishParams'. */
function reasonOfFailure(reason: unknown): keyof typeof reasons | undefined {
  const known = isRefusalReason(reason) || isFinishParamsProblem(reason) ? reason : undefined;
  return known && reasons[known] ? known : undefined;
}

function FailureView({ failure }: { failure: Failure }) {
  const auth = useAuth();
  const dialogs = useDialogs();
  const instance = useInstance();
  const [pending, setPending] = useState<SignInProviderId | undefined>();
  const shown = toDisplayError(failure.error);
  const details = shown.details as { reason?: unknown; provider?: unknown } | undefined;
  const reason = reasonOfFailure(details?.reason);
  const named = typeof details?.provider === 'string' ? details.provider : failure.stored?.provider;
  const provider = signInProviderIds.find((id) => id === named);
  const shownProvider = provider ? providerName(provider) : '';
  const returnTo = failure.stored?.returnTo ?? '';
  const next = reason ? reasons[reason]!.next : undefined;

  /** Starts the provider's flow again (a second press while leaving is ignored); a failing start shows its error. */
  const start = async (intent: ExternalIntent) => {
    if (pending || !provider) return;
    setPending(provider);
    try {
      await startExternalAuth(provider, intent, returnTo);
    } catch (error) {
      setPending(undefined);
      await dialogs.error(error);
    }
  };
  // The same sign-in again; without a known provider (nothing stored in this browser), the choice of one.
  const retry = () => {
    const intent = failure.stored?.intent ?? (auth.user ? 'link' : 'login');
    if (provider) void start(intent);
    else void openAuthDialog(dialogs, intent, returnTo || (auth.user ? '/me' : '/'));
  };

  const providerNode = <bdi>{shownProvider}</bdi>;
  return (
    <>
      {reason ? (
        <div className="state state_error oauth_failure" role="alert">
          <p className="state_error_title">{m.oauth_failed()}</p>
          <p className="oauth_hint" data-reason={reason} data-error-code={shown.code}>
            {rich(reasons[reason]!.text({ provider: slot('provider'), appName: slot('appName') }), { provider: providerNode, appName: <bdi>{instance.appName}</bdi> })}
          </p>
        </div>
      ) : (
        <ErrorState error={failure.error} title={m.oauth_failed()} />
      )}
      <p className="actions oauth_links">
        {next === 'register' && provider ? (
          <button type="button" className="button button_primary" data-next="register" aria-disabled={pending ? true : undefined} onClick={() => void start('register')}>
            {rich(m.oauth_register_with({ provider: slot('provider') }), { provider: providerNode })}
          </button>
        ) : null}
        {next === 'retry' ? (
          <button type="button" className="button button_primary" data-next="retry" aria-disabled={pending ? true : undefined} onClick={retry}>
            {m.oauth_try_again()}
          </button>
        ) : null}
        <Link href="/">{m.not_found_home()}</Link>
        {auth.user ? null : <Link href="/login">{m.nav_sign_in()}</Link>}
      </p>
      <p className="oauth_status" role="status">
        {pending ? rich(m.auth_redirecting({ provider: slot('provider') }), { provider: <bdi>{providerName(pending)}</bdi> }) : ''}
      </p>
    </>
  );
}
