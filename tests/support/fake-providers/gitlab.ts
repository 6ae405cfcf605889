import { bearerOf, json, jsonWithNumericId, serveFake, type FakeContext } from './common.ts';
import { codeServer } from './oauth-code.ts';

/** A GitLab instance served under /gitlab (GITLAB_URL = origin/gitlab): /oauth/authorize, /oauth/token, /api/v4/user. */
export function startFakeGitlab(context: FakeContext, client: { clientId: string; clientSecret: string }) {
  const oauth = codeServer(
    {
      ...client,
      pkce: true,
      errorsWithStatus200: false,
      requireResponseType: true,
      tokenAnswer: (accessToken, scope) => ({
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: 7200,
        refresh_token: `r-${accessToken}`,
        scope,
        created_at: Math.floor(Date.now() / 1000),
      }),
    },
    context.identity,
  );
  return serveFake('gitlab', context.log, (request, url, form) => {
    if (request.method === 'GET' && url.pathname === '/gitlab/oauth/authorize') return oauth.authorize(url);
    if (request.method === 'POST' && url.pathname === '/gitlab/oauth/token') return oauth.token(request, form);
    if (request.method === 'GET' && url.pathname === '/gitlab/api/v4/user') {
      const identity = oauth.identityOfToken(bearerOf(request));
      if (!identity) return json({ message: '401 Unauthorized' }, 401);
      const user = {
        username: identity.login,
        name: identity.name ?? identity.login,
        state: 'active',
        avatar_url: identity.avatarUrl ?? null,
        web_url: identity.profileUrl ?? `${context.origin}/gitlab/${identity.login}`,
      };
      return new Response(jsonWithNumericId(user, 'id', identity.id), { headers: { 'content-type': 'application/json' } });
    }
    return json({ message: '404 Not Found' }, 404);
  });
}
