import type { SignInConfig } from '../../../../config.ts';
import { identityOf } from '../identity.ts';
import { ProviderAnswerError, providerRefused, providerUnavailable } from '../provider-errors.ts';
import { endpoint } from '../../../../outbound/endpoint.ts';
import { parseJsonWithExactIds } from '../../../../outbound/json-exact-ids.ts';
import { providerFetcher } from '../provider-http.ts';
import type { SignInProvider } from './types.ts';

/**
 * itch.io offers only the implicit flow: the browser gets an access token in the URL fragment and the
 * client sends it as `code`. The token must open the profile API (scope profile:me), whose user id is
 * the account. Nothing shows which application a token was issued to (/credentials/info tells only its
 * type, scopes and expiry), so a token of any itch.io application, or an API key, passes: itch.io
 * therefore only links an account to a signed-in user (linkOnlyProviderIds), it never signs anyone in.
 */
export function itchProvider(config: NonNullable<SignInConfig['itch']>): SignInProvider {
  const fetcher = providerFetcher('itch');
  return {
    id: 'itch',
    async start({ redirectUri, state }) {
      const url = endpoint(config.url, '/user/oauth');
      url.searchParams.set('client_id', config.clientId);
      url.searchParams.set('scope', 'profile:me');
      url.searchParams.set('response_type', 'token');
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('state', state);
      return { url: url.href, postParams: [], secret: {} };
    },
    async finish({ code }) {
      if (!/^[\x21-\x7E]{1,512}$/.test(code)) throw providerRefused('itch');
      const response = await fetcher(endpoint(config.apiUrl, '/profile'), { headers: { authorization: `Bearer ${code}` } });
      const text = await response.text();
      let answer: Record<string, unknown> | undefined;
      try {
        answer = parseJsonWithExactIds(text) as Record<string, unknown>;
      } catch {
        answer = undefined;
      }
      // A refused key is {"errors": ["invalid key"]} (401, or 200 on older deployments).
      if (response.status === 401 || response.status === 403 || Array.isArray(answer?.errors)) throw providerRefused('itch');
      if (response.status >= 500) throw providerUnavailable('itch');
      const user = answer?.user as Record<string, unknown> | undefined;
      if (response.status !== 200 || !user || typeof user !== 'object') throw new ProviderAnswerError('itch', 'no user in /profile', response.status);
      return identityOf('itch', { id: user.id, titles: [user.display_name, user.username], profileUrl: user.url, pictureUrl: user.cover_url });
    },
  };
}
