import type { SignInConfig } from '../../../../config.ts';
import { identityOf } from '../identity.ts';
import { endpoint } from '../../../../outbound/endpoint.ts';
import { readProviderJson } from '../provider-http.ts';
import { codeFlowProvider } from './oauth2-code.ts';
import type { SignInProvider } from './types.ts';

const cdn = 'https://cdn.discordapp.com';

/** Discord: scope identify, PKCE S256; the account is /api/v10/users/@me's snowflake id (a string beyond 2^53). */
export function discordProvider(config: NonNullable<SignInConfig['discord']>): SignInProvider {
  return codeFlowProvider({
    id: 'discord',
    authorizationEndpoint: endpoint(config.url, '/oauth2/authorize'),
    tokenEndpoint: endpoint(config.url, '/api/oauth2/token'),
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    scope: 'identify',
    pkce: true,
    async profile(accessToken, fetcher) {
      const response = await fetcher(endpoint(config.url, '/api/v10/users/@me'), { headers: { authorization: `Bearer ${accessToken}` } });
      const user = await readProviderJson('discord', response);
      const id = typeof user.id === 'string' && /^[0-9]{1,32}$/.test(user.id) ? user.id : undefined;
      return identityOf('discord', {
        id: user.id,
        titles: [user.global_name, user.username],
        profileUrl: id ? `${config.url}/users/${id}` : undefined,
        pictureUrl: id ? avatarUrl(id, user.avatar) : undefined,
      });
    },
  });
}

/** Discord's CDN: the user's avatar by hash, else the default avatar of new-style usernames. */
function avatarUrl(id: string, avatar: unknown): string {
  if (typeof avatar === 'string' && /^(a_)?[0-9a-f]{32}$/.test(avatar)) return `${cdn}/avatars/${id}/${avatar}.png`;
  return `${cdn}/embed/avatars/${Number((BigInt(id) >> 22n) % 6n)}.png`;
}
