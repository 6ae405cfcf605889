import type { SignInConfig } from '../../../../config.ts';
import { identityOf } from '../identity.ts';
import { ProviderAnswerError } from '../provider-errors.ts';
import { endpoint } from '../../../../outbound/endpoint.ts';
import { readProviderJson } from '../provider-http.ts';
import { codeFlowProvider } from './oauth2-code.ts';
import type { SignInProvider } from './types.ts';

/**
 * Twitch: authorization code without PKCE (Twitch does not support it), an empty scope (the public
 * user record needs none); the account is Helix GET /helix/users' id, called with the Client-Id header.
 */
export function twitchProvider(config: NonNullable<SignInConfig['twitch']>): SignInProvider {
  return codeFlowProvider({
    id: 'twitch',
    authorizationEndpoint: endpoint(config.authUrl, '/oauth2/authorize'),
    tokenEndpoint: endpoint(config.authUrl, '/oauth2/token'),
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    scope: '',
    pkce: false,
    // Twitch answers `scope` as a JSON array; RFC 6749 (and oauth4webapi) expect a space-separated string.
    fixTokenAnswer: (json) => (Array.isArray(json.scope) ? { ...json, scope: json.scope.join(' ') } : json),
    async profile(accessToken, fetcher) {
      const response = await fetcher(endpoint(config.apiUrl, '/helix/users'), { headers: { authorization: `Bearer ${accessToken}`, 'client-id': config.clientId } });
      const answer = await readProviderJson('twitch', response);
      const user = Array.isArray(answer.data) ? (answer.data[0] as Record<string, unknown> | undefined) : undefined;
      if (!user || typeof user !== 'object') throw new ProviderAnswerError('twitch', 'no user in /helix/users', response.status);
      const login = typeof user.login === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(user.login) ? user.login : undefined;
      return identityOf('twitch', {
        id: user.id,
        titles: [user.display_name, user.login],
        profileUrl: login ? `https://www.twitch.tv/${login}` : undefined,
        pictureUrl: user.profile_image_url,
      });
    },
  });
}
