import { TRPCClientError } from '@trpc/client';
import { error_already_finalized } from '../../shared/i18n/paraglide/messages/error_already_finalized.js';
import { error_already_member } from '../../shared/i18n/paraglide/messages/error_already_member.js';
import { error_bad_param } from '../../shared/i18n/paraglide/messages/error_bad_param.js';
import { error_http_400 } from '../../shared/i18n/paraglide/messages/error_http_400.js';
import { error_http_401 } from '../../shared/i18n/paraglide/messages/error_http_401.js';
import { error_http_403 } from '../../shared/i18n/paraglide/messages/error_http_403.js';
import { error_http_404 } from '../../shared/i18n/paraglide/messages/error_http_404.js';
import { error_http_500 } from '../../shared/i18n/paraglide/messages/error_http_500.js';
import { error_http_502 } from '../../shared/i18n/paraglide/messages/error_http_502.js';
import { error_http_503 } from '../../shared/i18n/paraglide/messages/error_http_503.js';
import { error_http_other } from '../../shared/i18n/paraglide/messages/error_http_other.js';
import { error_insufficient_privileges } from '../../shared/i18n/paraglide/messages/error_insufficient_privileges.js';
import { error_limit_exceeded } from '../../shared/i18n/paraglide/messages/error_limit_exceeded.js';
import { error_name_conflict } from '../../shared/i18n/paraglide/messages/error_name_conflict.js';
import { error_network } from '../../shared/i18n/paraglide/messages/error_network.js';
import { error_not_empty } from '../../shared/i18n/paraglide/messages/error_not_empty.js';
import { error_not_finalized } from '../../shared/i18n/paraglide/messages/error_not_finalized.js';
import { error_not_found } from '../../shared/i18n/paraglide/messages/error_not_found.js';
import { error_not_patch } from '../../shared/i18n/paraglide/messages/error_not_patch.js';
import { error_not_supported } from '../../shared/i18n/paraglide/messages/error_not_supported.js';
import { error_out_of_storage } from '../../shared/i18n/paraglide/messages/error_out_of_storage.js';
import { error_request_aborted } from '../../shared/i18n/paraglide/messages/error_request_aborted.js';
import { error_timeout } from '../../shared/i18n/paraglide/messages/error_timeout.js';
import { error_trying_few_times_failed } from '../../shared/i18n/paraglide/messages/error_trying_few_times_failed.js';
import { error_unauthorized } from '../../shared/i18n/paraglide/messages/error_unauthorized.js';
import { error_unexpected_error } from '../../shared/i18n/paraglide/messages/error_unexpected_error.js';
import { error_unexpected_patch } from '../../shared/i18n/paraglide/messages/error_unexpected_patch.js';
import { error_unknown_intent } from '../../shared/i18n/paraglide/messages/error_unknown_intent.js';
import { error_unsupported_hash_algorithm } from '../../shared/i18n/paraglide/messages/error_unsupported_hash_algorithm.js';
import { error_unsupported_provider } from '../../shared/i18n/paraglide/messages/error_unsupported_provider.js';
import { error_wrong_auth } from '../../shared/i18n/paraglide/messages/error_wrong_auth.js';
import { error_wrong_credentials } from '../../shared/i18n/paraglide/messages/error_wrong_credentials.js';
import { error_wrong_finish_auth_params } from '../../shared/i18n/paraglide/messages/error_wrong_finish_auth_params.js';
import { error_wrong_provider } from '../../shared/i18n/paraglide/messages/error_wrong_provider.js';
import { error_bad_entrypoint } from '../../shared/i18n/paraglide/messages/error_bad_entrypoint.js';
import { error_busy } from '../../shared/i18n/paraglide/messages/error_busy.js';
import { error_local_app_unreachable } from '../../shared/i18n/paraglide/messages/error_local_app_unreachable.js';
import { error_download_failed } from '../../shared/i18n/paraglide/messages/error_download_failed.js';
import { error_not_installed } from '../../shared/i18n/paraglide/messages/error_not_installed.js';
import { error_not_trusted } from '../../shared/i18n/paraglide/messages/error_not_trusted.js';
import { error_untrusted_url } from '../../shared/i18n/paraglide/messages/error_untrusted_url.js';
import { error_provider_answer } from '../../shared/i18n/paraglide/messages/error_provider_answer.js';
import { error_provider_no_account } from '../../shared/i18n/paraglide/messages/error_provider_no_account.js';
import { error_provider_refused } from '../../shared/i18n/paraglide/messages/error_provider_refused.js';
import { error_provider_unavailable } from '../../shared/i18n/paraglide/messages/error_provider_unavailable.js';
import { ApiError } from '../../shared/api/errors.ts';
import { refusalReasonOf, type RefusalReason } from '../../shared/refusal-reasons.ts';
import { signInProviders } from './app-info.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { error_local_app_unreachable, error_bad_entrypoint, error_busy, error_download_failed, error_not_installed, error_not_trusted, error_untrusted_url, error_already_finalized, error_already_member, error_bad_param, error_http_400, error_http_401, error_http_403, error_http_404, error_http_500, error_http_502, error_http_503, error_http_other, error_insufficient_privileges, error_limit_exceeded, error_name_conflict, error_network, error_not_empty, error_not_finalized, error_not_found, error_not_patch, error_not_supported, error_out_of_storage, error_request_aborted, error_timeout, error_trying_few_times_failed, error_unauthorized, error_unexpected_error, error_unexpected_patch, error_unknown_intent, error_unsupported_hash_algorithm, error_unsupported_provider, error_wrong_auth, error_wrong_credentials, error_wrong_finish_auth_params, error_wrong_provider, error_provider_answer, error_provider_no_account, error_provider_refused, error_provider_unavailable };

/** What an error dialog or error state needs: the code (catalogued or raw) and any HTTP detail. */
export type DisplayError = { code: string; status?: number; statusText?: string; details?: unknown };

export function toDisplayError(error: unknown): DisplayError {
  // REST failures and the client-side codes (status 0: no HTTP answer behind them) are one class.
  if (error instanceof ApiError) {
    if (error.status !== 0) return { code: error.code, status: error.status, statusText: error.statusText, details: error.details };
    return error.details === undefined ? { code: error.code } : { code: error.code, details: error.details };
  }
  if (error instanceof TRPCClientError) {
    const data = (error as TRPCClientError<never>).data as { code?: unknown; httpStatus?: unknown; details?: unknown } | undefined;
    if (data && typeof data.code === 'string') return { code: data.code, status: typeof data.httpStatus === 'number' ? data.httpStatus : undefined, details: data.details };
    const cause = (error as { cause?: unknown }).cause;
    if (isAbort(cause) || isAbort(error)) return { code: 'request_aborted' };
    return { code: 'network' };
  }
  if (isAbort(error)) return { code: 'request_aborted' };
  if (error instanceof TypeError) return { code: 'network' };
  return { code: 'unexpected_error' };
}

function isAbort(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}

/** Listed one by one (not looked up by name) so the bundler keeps only these messages. */
const codeTexts: Record<string, () => string> = {
  not_found: m.error_not_found,
  name_conflict: m.error_name_conflict,
  bad_param: m.error_bad_param,
  wrong_auth: m.error_wrong_auth,
  unauthorized: m.error_unauthorized,
  wrong_credentials: m.error_wrong_credentials,
  wrong_provider: m.error_wrong_provider,
  insufficient_privileges: m.error_insufficient_privileges,
  not_empty: m.error_not_empty,
  limit_exceeded: m.error_limit_exceeded,
  already_member: m.error_already_member,
  not_finalized: m.error_not_finalized,
  already_finalized: m.error_already_finalized,
  unexpected_patch: m.error_unexpected_patch,
  timeout: m.error_timeout,
  not_patch: m.error_not_patch,
  not_supported: m.error_not_supported,
  out_of_storage: m.error_out_of_storage,
  unexpected_error: m.error_unexpected_error,
  unsupported_provider: m.error_unsupported_provider,
  unknown_intent: m.error_unknown_intent,
  wrong_finish_auth_params: m.error_wrong_finish_auth_params,
  trying_few_times_failed: m.error_trying_few_times_failed,
  unsupported_hash_algorithm: m.error_unsupported_hash_algorithm,
  request_aborted: m.error_request_aborted,
  network: m.error_network,
  http_400: m.error_http_400,
  http_401: m.error_http_401,
  http_403: m.error_http_403,
  http_404: m.error_http_404,
  http_500: m.error_http_500,
  http_502: m.error_http_502,
  http_503: m.error_http_503,
  // The local app's refusals (src/shared/schemas/local-helper.ts) that a player can meet.
  local_app_unreachable: m.error_local_app_unreachable,
  not_trusted: m.error_not_trusted,
  busy: m.error_busy,
  not_installed: m.error_not_installed,
  bad_entrypoint: m.error_bad_entrypoint,
  download_failed: m.error_download_failed,
  untrusted_url: m.error_untrusted_url,
};

/**
 * A sign-in or deploy provider's refusal (details.provider and details.reason from the server, see
 * domains/auth/external/provider-errors.ts and deploys/itch-api.ts) says what the provider did: the
 * codes alone would read as this server's own failures ('wrong user name or password', 'the server
 * took too long').
 */
const providerReasonTexts: Partial<Record<RefusalReason, (inputs: { provider: string }) => string>> = {
  provider_refused: m.error_provider_refused,
  invalid_assertion: m.error_provider_refused,
  no_account: m.error_provider_no_account,
  provider_unavailable: m.error_provider_unavailable,
  provider_error: m.error_provider_answer,
  provider_answer: m.error_provider_answer,
};

/** The provider and reason of an error's details, when it names a known provider and a listed reason. */
function providerRefusalOf(error: DisplayError): { provider: string; providerName: string; reason: RefusalReason } | undefined {
  const reason = refusalReasonOf(error.details);
  const provider = (error.details as { provider?: unknown } | undefined)?.provider;
  if (!reason || typeof provider !== 'string') return undefined;
  const known = signInProviders.find((item) => item.id === provider);
  return known ? { provider: known.id, providerName: known.name, reason } : undefined;
}

/** The {text} of 'Error: {text}.': the translated text of a known code, an unknown code raw (spec §8). */
export function errorText(error: DisplayError): string {
  const refusal = providerRefusalOf(error);
  const providerText = refusal ? providerReasonTexts[refusal.reason] : undefined;
  if (refusal && providerText) return providerText({ provider: refusal.providerName });
  const known = Object.hasOwn(codeTexts, error.code) ? codeTexts[error.code] : undefined;
  if (known) return known();
  if (/^http_\d+$/.test(error.code)) return m.error_http_other({ status: String(error.status ?? error.code.slice(5)), text: error.statusText ?? '' }).trim();
  return error.code;
}
