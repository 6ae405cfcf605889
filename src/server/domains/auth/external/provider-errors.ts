import type { SignInProviderId } from '../../../../shared/schemas/external-auth.ts';
import { AppError, refusal } from '../../../errors.ts';

export const providerTitles: Record<SignInProviderId, string> = {
  steam: 'Steam',
  github: 'GitHub',
  gitlab: 'GitLab',
  itch: 'itch.io',
  twitch: 'Twitch',
  discord: 'Discord',
};

/**
 * The provider said no: a code used, expired or issued for another PKCE verifier, an access token it
 * does not know, a Steam assertion it did not sign. The flow is over; the user starts again.
 */
export function providerRefused(provider: SignInProviderId): AppError {
  return refusal('wrong_credentials', `${providerTitles[provider]} did not confirm this sign-in: start again`, 'provider_refused', { provider });
}

/** What came back through the browser does not belong to this sign-in (forged or mixed up). */
export function assertionRefused(provider: SignInProviderId, what: string): AppError {
  return refusal('wrong_credentials', `The answer from ${providerTitles[provider]} does not match this sign-in (${what}): start again`, 'invalid_assertion', { provider });
}

/** Unreachable, too slow, or failing on its side (5xx). */
export function providerUnavailable(provider: SignInProviderId): AppError {
  return refusal('timeout', `${providerTitles[provider]} did not answer: try again later`, 'provider_unavailable', { provider });
}

/**
 * It answered, but not in the shape its documentation promises (too large, not JSON, no account): the
 * provider's fault, answered 502 (logged by the caller, never with tokens).
 */
export class ProviderAnswerError extends Error {
  override name = 'ProviderAnswerError';
  constructor(
    readonly provider: SignInProviderId,
    readonly what: string,
    readonly status?: number,
  ) {
    super(`${providerTitles[provider]} answered unexpectedly: ${what}`);
  }
}

/** The provider refused this server's client id or secret: the operator's to fix, answered 500. */
export class ClientCredentialsRefused extends ProviderAnswerError {
  override name = 'ClientCredentialsRefused';
}

/** What a sign-in answers when the provider's reply was unusable (ProviderAnswerError): 502, or 500 for our own configuration. */
export function providerAnswerFailed(provider: SignInProviderId, error: ProviderAnswerError | undefined): AppError {
  const status = error && !(error instanceof ClientCredentialsRefused) ? 502 : 500;
  return refusal('unexpected_error', `${providerTitles[provider]} answered in an unexpected way: try again later`, 'provider_error', { provider }, status);
}
