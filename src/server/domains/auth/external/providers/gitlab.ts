import type { SignInConfig } from '../../../../config.ts';
import { identityOf } from '../identity.ts';
import { endpoint } from '../../../../outbound/endpoint.ts';
import { readProviderJson } from '../provider-http.ts';
import { codeFlowProvider } from './oauth2-code.ts';
import type { SignInProvider } from './types.ts';

/** GitLab (gitlab.com or a self-managed instance): scope read_user, PKCE S256; the account is /api/v4/user's id. */
export function gitlabProvider(config: NonNullable<SignInConfig['gitlab']>): SignInProvider {
  return codeFlowProvider({
    id: 'gitlab',
    authorizationEndpoint: endpoint(config.url, '/oauth/authorize'),
    tokenEndpoint: endpoint(config.url, '/oauth/token'),
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    scope: 'read_user',
    pkce: true,
    async profile(accessToken, fetcher) {
      const response = await fetcher(endpoint(config.url, '/api/v4/user'), { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } });
      const user = await readProviderJson('gitlab', response);
      return identityOf('gitlab', { id: user.id, titles: [user.name, user.username], profileUrl: user.web_url, pictureUrl: user.avatar_url });
    },
  });
}
