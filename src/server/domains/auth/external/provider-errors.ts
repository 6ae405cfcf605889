import type { SignInProviderId } from '../../../../shared/schemas/external-auth.ts';
import { AppError } from '../../../errors.ts';

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
  return new AppError('wrong_credentials', `${providerTitles[provider]} did not confirm this sign-in: start again`, { provider, reason: 'provider_refused' });
}

/** What came back through the browser does not belong to this sign-in (forged or mixed up). */
export function assertionRefused(provider: SignInProviderId, what: string): AppError {
  return new AppError('wrong_credentials', `The answer from ${providerTitles[provider]} does not match this sign-in (${what}): start again`, {
    provider,
    reason: 'invalid_assertion',
  });
}

/** Unreachable, too slow, or failing on its side (5xx). */
export function providerUnavailable(provider: SignInProviderId): AppError {
  return new AppError('timeout', `${providerTitles[provider]} did not answer: try again later`, { provider, reason: 'provider_unavailable' });
}

/** It answered, but not in the shape its documentation promises (logged by the caller, never with tokens). */
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
