import { bearerOf, json, jsonWithNumericId, serveFake, type FakeContext } from './common.ts';
import { codeServer } from './oauth-code.ts';

/** GitHub: /login/oauth/authorize, /login/oauth/access_token (errors with status 200), API /user (GITHUB_API_URL = origin/api). */
export function startFakeGithub(context: FakeContext, client: { clientId: string; clientSecret: string }) {
  const oauth = codeServer(
    {
      ...client,
      pkce: true,
      errorsWithStatus200: true,
      requireResponseType: false,
      tokenAnswer: (accessToken, scope) => ({ access_token: accessToken, token_type: 'bearer', scope }),
    },
    context.identity,
  );
  return serveFake('github', context.log, (request, url, form) => {
    if (request.method === 'GET' && url.pathname === '/login/oauth/authorize') return oauth.authorize(url);
    if (request.method === 'POST' && url.pathname === '/login/oauth/access_token') return oauth.token(request, form);
    if (request.method === 'GET' && url.pathname === '/api/user') {
      if (!request.headers.get('user-agent')) return json({ message: 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header' }, 403);
      const identity = oauth.identityOfToken(bearerOf(request));
      if (!identity) return json({ message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' }, 401);
      const user = {
        login: identity.login,
        node_id: `U_${identity.id}`,
        avatar_url: identity.avatarUrl ?? `https://avatars.githubusercontent.com/u/${identity.id}?v=4`,
        html_url: identity.profileUrl ?? `https://github.com/${identity.login}`,
        type: 'User',
        name: identity.name ?? null,
      };
      return new Response(jsonWithNumericId(user, 'id', identity.id), { headers: { 'content-type': 'application/json; charset=utf-8' } });
    }
    return json({ message: 'Not Found' }, 404);
  });
}
