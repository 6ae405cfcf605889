import type { SignInProviderId } from '../../../../shared/schemas/external-auth.ts';
import { boundedFetch, OutboundTooLarge } from '../../../outbound/bounded-fetch.ts';
import { parseJsonWithExactIds } from '../../../outbound/json-exact-ids.ts';
import { ProviderAnswerError, providerRefused, providerUnavailable } from './provider-errors.ts';

/**
 * fetch for provider calls (also oauth4webapi's customFetch): the outbound room's bounded fetch, its
 * failures said in sign-in's terms: no answer is providerUnavailable, an answer too large a
 * ProviderAnswerError.
 */
export function providerFetcher(provider: SignInProviderId) {
  return async (url: string | URL, init: RequestInit = {}): Promise<Response> => {
    try {
      return await boundedFetch(url, init);
    } catch (error) {
      if (error instanceof OutboundTooLarge) throw new ProviderAnswerError(provider, 'answer too large', error.status);
      throw providerUnavailable(provider);
    }
  };
}

/**
 * A provider API answer as JSON: 401 and 403 mean the token was refused; 5xx that the provider is
 * failing; anything else that is not a JSON object is unexpected.
 */
export async function readProviderJson(provider: SignInProviderId, response: Response): Promise<Record<string, unknown>> {
  if (response.status === 401 || response.status === 403) throw providerRefused(provider);
  if (response.status >= 500) throw providerUnavailable(provider);
  if (response.status !== 200) throw new ProviderAnswerError(provider, 'unexpected status', response.status);
  let json: unknown;
  try {
    json = parseJsonWithExactIds(await response.text());
  } catch {
    throw new ProviderAnswerError(provider, 'not JSON', response.status);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ProviderAnswerError(provider, 'not a JSON object', response.status);
  return json as Record<string, unknown>;
}
