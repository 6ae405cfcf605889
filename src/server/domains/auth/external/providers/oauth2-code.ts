import * as oauth from 'oauth4webapi';
import type { SignInProviderId } from '../../../../../shared/schemas/external-auth.ts';
import { AppError } from '../../../../errors.ts';
import type { ExternalIdentity } from '../identity.ts';
import { ClientCredentialsRefused, ProviderAnswerError, providerRefused, providerUnavailable } from '../provider-errors.ts';
import { providerFetcher } from '../provider-http.ts';
import type { SignInProvider } from './types.ts';

export type CodeFlowSettings = {
  id: SignInProviderId;
  authorizationEndpoint: URL;
  tokenEndpoint: URL;
  clientId: string;
  clientSecret: string;
  /** Space-separated; undefined sends none (the provider's default). */
  scope: string | undefined;
  pkce: boolean;
  /** A provider's token answer that departs from RFC 6749, put right before oauth4webapi checks it. */
  fixTokenAnswer?: (json: Record<string, unknown>) => Record<string, unknown>;
  /** The account behind the access token, from the provider's user API. */
  profile(accessToken: string, fetcher: ReturnType<typeof providerFetcher>): Promise<ExternalIdentity>;
};

/**
 * OAuth 2.0 authorization code flow (RFC 6749, PKCE S256 per RFC 7636 where the provider supports it)
 * through oauth4webapi. The client secret is sent in the token request body only.
 */
export function codeFlowProvider(settings: CodeFlowSettings): SignInProvider {
  const server: oauth.AuthorizationServer = {
    issuer: settings.authorizationEndpoint.origin,
    authorization_endpoint: settings.authorizationEndpoint.href,
    token_endpoint: settings.tokenEndpoint.href,
  };
  const client: oauth.Client = { client_id: settings.clientId };
  const fetcher = providerFetcher(settings.id);
  const tokenFetch = settings.fixTokenAnswer ? fixingFetch(fetcher, settings.fixTokenAnswer) : fetcher;
  // http is the operator's explicit choice (a GitLab on a private network, the tests' fakes).
  const insecure = settings.tokenEndpoint.protocol === 'http:';

  return {
    id: settings.id,
    async start({ redirectUri, state }) {
      const url = new URL(settings.authorizationEndpoint);
      url.searchParams.set('client_id', settings.clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('response_type', 'code');
      if (settings.scope !== undefined) url.searchParams.set('scope', settings.scope);
      url.searchParams.set('state', state);
      const secret: Record<string, string> = {};
      if (settings.pkce) {
        secret.codeVerifier = oauth.generateRandomCodeVerifier();
        url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(secret.codeVerifier));
        url.searchParams.set('code_challenge_method', 'S256');
      }
      return { url: url.href, postParams: [], secret };
    },
    async finish({ code, state, redirectUri, secret }) {
      let accessToken: string;
      try {
        const callback = oauth.validateAuthResponse(server, client, new URLSearchParams({ code, state }), state);
        const verifier = settings.pkce ? secret.codeVerifier : oauth.nopkce;
        if (verifier === undefined) throw new ProviderAnswerError(settings.id, 'no PKCE verifier kept');
        const response = await oauth.authorizationCodeGrantRequest(server, client, oauth.ClientSecretPost(settings.clientSecret), callback, redirectUri, verifier, {
          [oauth.customFetch]: tokenFetch,
          [oauth.allowInsecureRequests]: insecure,
        });
        const result = await oauth.processAuthorizationCodeResponse(server, client, response);
        accessToken = result.access_token;
      } catch (error) {
        throw tokenError(settings.id, error);
      }
      return settings.profile(accessToken, fetcher);
    },
  };
}

/**
 * An OAuth error answer about the grant (invalid_grant: a code used, expired, or made for another PKCE
 * challenge or redirect) is the provider's refusal; one about the client (invalid_client: wrong
 * CLIENT_ID/SECRET) is the operator's to fix, so it is logged as unexpected; 5xx is unavailability.
 */
function tokenError(provider: SignInProviderId, error: unknown): Error {
  if (error instanceof AppError || error instanceof ProviderAnswerError) return error;
  if (error instanceof oauth.ResponseBodyError) return oauthError(provider, error.error, error.status);
  if (error instanceof oauth.OperationProcessingError) {
    // GitHub answers its errors with status 200 and an `error` member instead of the access token.
    const body = (error.cause as { body?: { error?: unknown } } | undefined)?.body;
    if (typeof body?.error === 'string') return oauthError(provider, body.error, 200);
    if (error.cause instanceof Response && error.cause.status >= 500) return providerUnavailable(provider);
    return new ProviderAnswerError(provider, `token endpoint: ${error.message}`, error.cause instanceof Response ? error.cause.status : undefined);
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) return new ClientCredentialsRefused(provider, 'token endpoint refused the client credentials', 401);
  return new ProviderAnswerError(provider, `token endpoint: ${error instanceof Error ? error.message : 'failed'}`);
}

function oauthError(provider: SignInProviderId, code: string, status: number): Error {
  if (status >= 500) return providerUnavailable(provider);
  if (/client/.test(code)) return new ClientCredentialsRefused(provider, `token endpoint refused the client credentials (${code.slice(0, 64)})`, status);
  return providerRefused(provider);
}

function fixingFetch(fetcher: ReturnType<typeof providerFetcher>, fix: (json: Record<string, unknown>) => Record<string, unknown>) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const response = await fetcher(url, init);
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return new Response(text, response);
    }
    const fixed = json && typeof json === 'object' && !Array.isArray(json) ? fix(json as Record<string, unknown>) : json;
    return new Response(JSON.stringify(fixed), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
