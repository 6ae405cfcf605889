import { json, jsonText, jsonWithNumericId, randomToken, redirect, serveFake, type FakeContext, type FakeIdentity } from './common.ts';

/** answer: a profile reply that breaks its documentation (over the server's 1 MiB limit, or not JSON). */
export type ItchKnobs = { refuseTokens: boolean; answer?: 'huge' | 'not_json' };

/** Another itch.io application registered on the fake (any game or site asking profile:me): its tokens open /api/profile alike. */
export const anotherItchAppClientId = 'another-itch-app';

/**
 * itch.io's implicit flow: /user/oauth approves at once and sends the browser to
 * redirect_uri#access_token=...&state=...; the server API /api/profile (ITCH_API_URL = origin/api)
 * answers {user} for a token it issued (Authorization: Bearer), to this server's client or to another
 * application alike (as itch.io does), {errors: ['invalid key']} otherwise.
 */
export function startFakeItch(context: FakeContext, clientId: string, knobs: ItchKnobs) {
  const tokens = new Map<string, FakeIdentity>();
  return serveFake('itch', context.log, (request, url) => {
    if (request.method === 'GET' && url.pathname === '/user/oauth') {
      const query = url.searchParams;
      const redirectUri = query.get('redirect_uri');
      if (![clientId, anotherItchAppClientId].includes(query.get('client_id') ?? '') || !redirectUri || query.get('response_type') !== 'token' || !(query.get('scope') ?? '').split(' ').includes('profile:me')) {
        return new Response('Invalid OAuth request', { status: 400 });
      }
      const accessToken = randomToken();
      tokens.set(accessToken, context.identity());
      const fragment = new URLSearchParams({ access_token: accessToken });
      const state = query.get('state');
      if (state !== null) fragment.set('state', state);
      return redirect(`${redirectUri}#${fragment}`);
    }
    if (request.method === 'GET' && url.pathname === '/api/profile') {
      if (knobs.answer === 'huge') return jsonText(`{"user":{"username":"${'x'.repeat(1024 * 1024 + 1)}"}}`);
      if (knobs.answer === 'not_json') return jsonText('<html>itch.io is down for maintenance</html>');
      const key = /^Bearer (\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1];
      const identity = key && !knobs.refuseTokens ? tokens.get(key) : undefined;
      if (!identity) return json({ errors: ['invalid key'] }, 401);
      const user = {
        username: identity.login,
        display_name: identity.name ?? null,
        url: identity.profileUrl ?? `https://${identity.login}.itch.io`,
        cover_url: identity.avatarUrl ?? null,
        gamer: true,
        developer: false,
        press_user: false,
      };
      return new Response(`{"user":${jsonWithNumericId(user, 'id', identity.id)}}`, { headers: { 'content-type': 'application/json' } });
    }
    return json({ errors: ['not found'] }, 404);
  });
}
