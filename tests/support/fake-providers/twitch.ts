import { bearerOf, json, serveFake, type FakeContext } from './common.ts';
import { codeServer } from './oauth-code.ts';

/**
 * Twitch: /oauth2/authorize, /oauth2/token (no PKCE; `scope` answered as an array, as Twitch does), and
 * Helix /helix/users under /api (TWITCH_API_URL = origin/api), which requires the matching Client-Id.
 */
export function startFakeTwitch(context: FakeContext, client: { clientId: string; clientSecret: string }) {
  const oauth = codeServer(
    {
      ...client,
      pkce: false,
      errorsWithStatus200: false,
      requireResponseType: true,
      tokenAnswer: (accessToken, scope) => ({
        access_token: accessToken,
        expires_in: 14_124,
        refresh_token: `r-${accessToken}`,
        scope: scope ? scope.split(' ') : [],
        token_type: 'bearer',
      }),
    },
    context.identity,
  );
  return serveFake('twitch', context.log, (request, url, form) => {
    if (request.method === 'GET' && url.pathname === '/oauth2/authorize') return oauth.authorize(url);
    if (request.method === 'POST' && url.pathname === '/oauth2/token') return oauth.token(request, form);
    if (request.method === 'GET' && url.pathname === '/api/helix/users') {
      const identity = oauth.identityOfToken(bearerOf(request));
      if (!identity) return json({ error: 'Unauthorized', status: 401, message: 'Invalid OAuth token' }, 401);
      if (request.headers.get('client-id') !== client.clientId) return json({ error: 'Unauthorized', status: 401, message: 'Client ID and OAuth token do not match' }, 401);
      return json({
        data: [
          {
            id: identity.id,
            login: identity.login,
            display_name: identity.name ?? identity.login,
            type: '',
            broadcaster_type: '',
            description: '',
            profile_image_url: identity.avatarUrl ?? '',
            offline_image_url: '',
            created_at: '2016-12-14T20:32:28Z',
          },
        ],
      });
    }
    return json({ error: 'Not Found', status: 404, message: '' }, 404);
  });
}
