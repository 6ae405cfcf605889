import type { SignInConfig } from '../../../../config.ts';
import { identityOf } from '../identity.ts';
import { endpoint } from '../../../../outbound/endpoint.ts';
import { readProviderJson } from '../provider-http.ts';
import { codeFlowProvider } from './oauth2-code.ts';
import type { SignInProvider } from './types.ts';

/** GitHub OAuth app: no scope (public profile only), PKCE S256; the account is GET /user's numeric id. */
export function githubProvider(config: NonNullable<SignInConfig['github']>): SignInProvider {
  return codeFlowProvider({
    id: 'github',
    authorizationEndpoint: endpoint(config.url, '/login/oauth/authorize'),
    tokenEndpoint: endpoint(config.url, '/login/oauth/access_token'),
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    scope: undefined,
    pkce: true,
    async profile(accessToken, fetcher) {
      const response = await fetcher(endpoint(config.apiUrl, '/user'), {
        headers: { authorization: `Bearer ${accessToken}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': 'Cartridge' },
      });
      const user = await readProviderJson('github', response);
      return identityOf('github', { id: user.id, titles: [user.name, user.login], profileUrl: user.html_url, pictureUrl: user.avatar_url });
    },
  });
}
