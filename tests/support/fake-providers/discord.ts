import { createHash } from 'node:crypto';
import { bearerOf, json, serveFake, type FakeContext } from './common.ts';
import { codeServer } from './oauth-code.ts';

/** Discord: /oauth2/authorize, /api/oauth2/token, /api/v10/users/@me (snowflake ids as strings; avatar is a hash). */
export function startFakeDiscord(context: FakeContext, client: { clientId: string; clientSecret: string }) {
  const oauth = codeServer(
    {
      ...client,
      pkce: true,
      errorsWithStatus200: false,
      requireResponseType: true,
      tokenAnswer: (accessToken, scope) => ({ access_token: accessToken, token_type: 'Bearer', expires_in: 604_800, refresh_token: `r-${accessToken}`, scope }),
    },
    context.identity,
  );
  return serveFake('discord', context.log, (request, url, form) => {
    if (request.method === 'GET' && url.pathname === '/oauth2/authorize') return oauth.authorize(url);
    if (request.method === 'POST' && url.pathname === '/api/oauth2/token') return oauth.token(request, form);
    if (request.method === 'GET' && url.pathname === '/api/v10/users/@me') {
      const identity = oauth.identityOfToken(bearerOf(request));
      if (!identity) return json({ message: '401: Unauthorized', code: 0 }, 401);
      // Discord sends an avatar hash (clients build the CDN URL): avatarUrl is taken as the hash when it is
      // one, else hashed into one.
      const avatar = identity.avatarUrl === undefined ? null : /^(a_)?[0-9a-f]{32}$/.test(identity.avatarUrl) ? identity.avatarUrl : createHash('md5').update(identity.avatarUrl).digest('hex');
      return json({ id: identity.id, username: identity.login, global_name: identity.name ?? null, avatar, discriminator: '0' });
    }
    return json({ message: '404: Not Found', code: 0 }, 404);
  });
}
