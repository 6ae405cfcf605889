/**
 * External sign-in (spec §4 and §5), without React: what the start step keeps in the browser, how the
 * provider's answer is read from the return address, and the finishing decisions. The authentication
 * dialog (dialogs/auth-dialog.tsx) starts; the oauth page (routes/oauth/oauth-page.tsx) finishes.
 */
import { ApiError } from '../../../shared/api/errors.ts';
import type { ExternalIntent, FinishedExternalAuth, StartedExternalAuth } from '../../../shared/schemas/external-auth.ts';

/** Where start keeps its token, the page to come back to (path plus query), the intent and the provider. */
export const externalAuthStorageKey = 'externalAuth';

export type StoredExternalAuth = { token: string; returnTo: string; intent: ExternalIntent; provider: string };

/** Kept in localStorage: the provider's page may open the way back in another tab of the same browser. */
export function saveExternalAuth(stored: StoredExternalAuth, storage: Storage = localStorage): void {
  storage.setItem(externalAuthStorageKey, JSON.stringify(stored));
}

/** What start stored, once: it is removed as it is read (the token is single-use). Undefined when absent or unreadable. */
export function takeExternalAuth(storage: Storage = localStorage): StoredExternalAuth | undefined {
  let text: string | null = null;
  try {
    text = storage.getItem(externalAuthStorageKey);
    storage.removeItem(externalAuthStorageKey);
  } catch {
    return undefined;
  }
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as Partial<Record<keyof StoredExternalAuth, unknown>>;
    if (typeof value.token !== 'string' || typeof value.provider !== 'string' || typeof value.intent !== 'string') return undefined;
    return { token: value.token, provider: value.provider, intent: value.intent as ExternalIntent, returnTo: typeof value.returnTo === 'string' ? value.returnTo : '' };
  } catch {
    return undefined;
  }
}

/** What the provider handed back: the code for the finish call and the state (the start token). */
export type ProviderAnswer = { code: string | undefined; state: string | undefined };

const nonEmpty = (value: string | null | undefined): string | undefined => (value ? value : undefined);

/**
 * Spec §5 code extraction from the address the provider sent the browser back to:
 * - github, gitlab, twitch, discord: `code` and `state` from the query;
 * - steam: every query parameter as one JSON object (the OpenID assertion, checked by the server), `state`
 *   from the query; without any parameter but `state` there is no code;
 * - itch: `access_token` and `state` from the fragment (itch.io's implicit grant);
 * - any other provider: unsupported_provider.
 */
export function readProviderAnswer(provider: string, url: URL): ProviderAnswer {
  const query = url.searchParams;
  switch (provider) {
    case 'github':
    case 'gitlab':
    case 'twitch':
    case 'discord':
      return { code: nonEmpty(query.get('code')), state: nonEmpty(query.get('state')) };
    case 'steam': {
      const params: Record<string, string> = {};
      for (const [name, value] of query) params[name] = value;
      const hasAssertion = Object.keys(params).some((name) => name !== 'state');
      return { code: hasAssertion ? JSON.stringify(params) : undefined, state: nonEmpty(query.get('state')) };
    }
    case 'itch': {
      const fragment = new URLSearchParams(url.hash.replace(/^#/, ''));
      return { code: nonEmpty(fragment.get('access_token')), state: nonEmpty(fragment.get('state')) };
    }
    default:
      throw new ApiError('unsupported_provider', `unsupported provider: ${provider}`);
  }
}

/**
 * Why a return address cannot finish (the details.reason of wrong_finish_auth_params): this browser
 * started no sign-in (the link was opened in another one, or already used here), the state is another
 * sign-in's (a stale link), or the provider sent no code (cancelled or refused on its side).
 */
const finishParamsProblems = ['nothing_stored', 'state_mismatch', 'no_code'] as const;
export type FinishParamsProblem = (typeof finishParamsProblems)[number];

export function isFinishParamsProblem(value: unknown): value is FinishParamsProblem {
  return typeof value === 'string' && (finishParamsProblems as readonly string[]).includes(value);
}

/** Spec §4: the state must equal the stored token and a code must exist; the finish call's query. */
export function finishParams(stored: StoredExternalAuth | undefined, url: URL): { token: string; code: string } {
  const refuse = (reason: FinishParamsProblem, message: string) =>
    new ApiError('wrong_finish_auth_params', message, { details: stored ? { reason, provider: stored.provider } : { reason } });
  if (!stored) throw refuse('nothing_stored', 'nothing was stored by the start step');
  const { code, state } = readProviderAnswer(stored.provider, url);
  if (!state || state !== stored.token) throw refuse('state_mismatch', 'the provider did not return the expected state');
  if (!code) throw refuse('no_code', 'the provider did not return a code');
  return { token: stored.token, code };
}

/** The server calls of the finishing step (REST in the browser; fakes in tests). */
export type ExternalAuthCalls = {
  finish(query: { token: string; code: string }): Promise<FinishedExternalAuth>;
  /** POST /users/auth?token: a provider account that has a user signs in. */
  signIn(token: string): Promise<unknown>;
  /** POST /users/register?token: a new account made with the provider account. */
  register(token: string): Promise<unknown>;
  /** POST /users/me/credentials?token: the provider account joins the signed-in user. */
  link(token: string): Promise<unknown>;
};

export type FinishedFlow = {
  /** What was done: 'login' (signed in), 'register' (account made) or 'link' (account linked). */
  outcome: ExternalIntent;
  /** The reply of the call that did it (a session for login and register, the credential for link). */
  reply: unknown;
  /** Where the browser goes now. */
  next: string;
};

/**
 * Spec §4 finishing: check state and code, finish with the provider, then sign in (the account has a
 * user), register or link by the intent; any other intent is unknown_intent.
 */
export async function finishExternalAuth(stored: StoredExternalAuth | undefined, url: URL, calls: ExternalAuthCalls): Promise<FinishedFlow> {
  const query = finishParams(stored, url);
  const finished = await calls.finish(query);
  let outcome: ExternalIntent;
  let reply: unknown;
  if (finished.hasUser) {
    outcome = 'login';
    reply = await calls.signIn(finished.token);
  } else if (finished.intent === 'register') {
    outcome = 'register';
    reply = await calls.register(finished.token);
  } else if (finished.intent === 'link') {
    outcome = 'link';
    reply = await calls.link(finished.token);
  } else {
    throw new ApiError('unknown_intent', `unknown intent: ${String(finished.intent)}`);
  }
  return { outcome, reply, next: nextAddress(finished.intent, stored?.returnTo) };
}

/**
 * Spec §2: the page the user started from (path plus query) when there is one; otherwise login and
 * register go home and link goes to /me. Only same-origin paths count, never the sign-in screens or
 * this callback itself.
 */
export function nextAddress(intent: string, returnTo: string | undefined): string {
  if (returnTo && isSafeReturn(returnTo) && !/^\/(login|register|oauth)(\/|\?|#|$)/.test(returnTo)) return returnTo;
  return intent === 'link' ? '/me' : '/';
}

function isSafeReturn(value: string): boolean {
  return value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\');
}

/** Spec §4 redirect: a hidden POST form (built with DOM calls: no inline script under the CSP) when there are POST parameters, else a navigation. */
export function leaveForProvider(started: StartedExternalAuth, doc: Document = document): void {
  const params = started.postParams ?? [];
  if (params.length === 0) {
    doc.defaultView?.location.assign(started.url);
    return;
  }
  const form = doc.createElement('form');
  form.method = 'POST';
  form.action = started.url;
  form.hidden = true;
  for (const { name, value } of params) {
    const input = doc.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.append(input);
  }
  doc.body.append(form);
  form.submit();
}
