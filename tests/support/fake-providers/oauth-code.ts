import { json, randomToken, redirect, s256, type FakeIdentity } from './common.ts';

type Grant = { clientId: string; redirectUri: string; challenge: string | undefined; identity: FakeIdentity; expiresAt: number; scope: string };

export type CodeServerOptions = {
  clientId: string;
  clientSecret: string;
  /** Records code_challenge (S256 only) and insists on the verifier; Twitch has no PKCE. */
  pkce: boolean;
  /** GitHub answers token errors with status 200 and {error, error_description}. */
  errorsWithStatus200: boolean;
  /** The token endpoint's success answer, in the provider's own shape. */
  tokenAnswer(accessToken: string, scope: string): Record<string, unknown>;
  /** Authorization requests must send response_type=code (GitHub does not need it). */
  requireResponseType: boolean;
};

/**
 * The OAuth 2.0 authorization code server of a fake provider: the authorization endpoint approves at
 * once (302 to redirect_uri with code and state); the token endpoint checks the client credentials (body
 * or Basic), the code (known, unused, unexpired: 10 minutes), the redirect_uri it was issued for and
 * the PKCE S256 verifier, as the real ones do; access tokens map to the approved identity.
 */
export function codeServer(options: CodeServerOptions, currentIdentity: () => FakeIdentity) {
  const grants = new Map<string, Grant>();
  const tokens = new Map<string, FakeIdentity>();

  const authorize = (url: URL): Response => {
    const query = url.searchParams;
    const redirectUri = query.get('redirect_uri');
    if (query.get('client_id') !== options.clientId || !redirectUri || !/^https?:\/\//.test(redirectUri)) {
      return json({ error: 'invalid_request', error_description: 'unknown client_id or bad redirect_uri' }, 400);
    }
    const back = new URL(redirectUri);
    const state = query.get('state');
    const fail = (error: string) => {
      back.searchParams.set('error', error);
      if (state !== null) back.searchParams.set('state', state);
      return redirect(back.href);
    };
    if (options.requireResponseType && query.get('response_type') !== 'code') return fail('unsupported_response_type');
    const challenge = query.get('code_challenge') ?? undefined;
    if (challenge !== undefined && query.get('code_challenge_method') !== 'S256') return fail('invalid_request');
    const code = randomToken(16);
    grants.set(code, {
      clientId: options.clientId,
      redirectUri,
      challenge: options.pkce ? challenge : undefined,
      identity: currentIdentity(),
      expiresAt: Date.now() + 10 * 60_000,
      scope: query.get('scope') ?? '',
    });
    back.searchParams.set('code', code);
    if (state !== null) back.searchParams.set('state', state);
    return redirect(back.href);
  };

  const refuse = (error: string, description: string, status = 400): Response =>
    options.errorsWithStatus200 ? json({ error, error_description: description }) : json({ error, error_description: description }, status);

  const token = (request: Request, form: Record<string, string> | undefined): Response => {
    if (!form) return refuse('invalid_request', 'form body expected');
    let clientId = form.client_id;
    let clientSecret = form.client_secret;
    const basic = /^Basic (\S+)$/i.exec(request.headers.get('authorization') ?? '');
    if (basic) [clientId, clientSecret] = Buffer.from(basic[1]!, 'base64').toString().split(':').map(decodeURIComponent) as [string, string];
    if (clientId !== options.clientId || clientSecret !== options.clientSecret) {
      return options.errorsWithStatus200 ? json({ error: 'incorrect_client_credentials' }) : json({ error: 'invalid_client' }, 401);
    }
    if (form.grant_type !== 'authorization_code') return refuse('unsupported_grant_type', 'authorization_code only');
    const grant = grants.get(form.code ?? '');
    // A code is spent by its first redemption, whatever comes of it.
    if (form.code) grants.delete(form.code);
    if (!grant || grant.expiresAt < Date.now()) return refuse(options.errorsWithStatus200 ? 'bad_verification_code' : 'invalid_grant', 'The code is incorrect, used or expired');
    if (grant.redirectUri !== form.redirect_uri) return refuse(options.errorsWithStatus200 ? 'redirect_uri_mismatch' : 'invalid_grant', 'redirect_uri differs');
    if (grant.challenge !== undefined && (!form.code_verifier || s256(form.code_verifier) !== grant.challenge)) {
      return refuse('invalid_grant', 'PKCE verification failed');
    }
    const accessToken = randomToken();
    tokens.set(accessToken, grant.identity);
    return json(options.tokenAnswer(accessToken, grant.scope));
  };

  return { authorize, token, identityOfToken: (accessToken: string | undefined) => (accessToken ? tokens.get(accessToken) : undefined) };
}
