import type { SignInConfig } from '../../../../config.ts';
import { badParam } from '../../../../errors.ts';
import { assertionRefused, ProviderAnswerError, providerRefused, providerUnavailable } from '../provider-errors.ts';
import { providerFetcher } from '../provider-http.ts';
import { steamProfile } from './steam-profile.ts';
import type { SignInProvider } from './types.ts';

const openIdNamespace = 'http://specs.openid.net/auth/2.0';
const identifierSelect = `${openIdNamespace}/identifier_select`;
const claimedIdForm = /^https:\/\/steamcommunity\.com\/openid\/id\/([0-9]{17})$/;
/** Fields the assertion must sign: without them a response could be pieced together from others. */
const mustBeSigned = ['op_endpoint', 'claimed_id', 'identity', 'return_to', 'response_nonce', 'assoc_handle'];

/**
 * Steam signs in with OpenID 2.0 (it has no OAuth for this): checkid_setup sends the browser to Steam
 * with return_to = PUBLIC_URL/oauth?state=<start token>; Steam sends it back with a signed assertion,
 * which the client hands over whole as JSON in `code`. The assertion must be for this very return_to
 * and endpoint, name a SteamID claimed id, and Steam itself must confirm its signature
 * (check_authentication, sent to the configured endpoint, never to one the assertion names).
 */
export function steamProvider(config: NonNullable<SignInConfig['steam']>): SignInProvider {
  const fetcher = providerFetcher('steam');
  return {
    id: 'steam',
    async start({ redirectUri, state }) {
      const returnTo = new URL(redirectUri);
      returnTo.searchParams.set('state', state);
      const url = new URL(config.openidUrl);
      url.searchParams.set('openid.ns', openIdNamespace);
      url.searchParams.set('openid.mode', 'checkid_setup');
      url.searchParams.set('openid.return_to', returnTo.href);
      url.searchParams.set('openid.realm', returnTo.origin);
      url.searchParams.set('openid.identity', identifierSelect);
      url.searchParams.set('openid.claimed_id', identifierSelect);
      return { url: url.href, postParams: [], secret: { returnTo: returnTo.href } };
    },
    async finish({ code, secret }) {
      const fields = openIdFieldsOf(code);
      if (fields['openid.ns'] !== openIdNamespace || fields['openid.mode'] !== 'id_res') throw assertionRefused('steam', 'mode');
      if (fields['openid.op_endpoint'] !== config.openidUrl) throw assertionRefused('steam', 'op_endpoint');
      if (!secret.returnTo || fields['openid.return_to'] !== secret.returnTo) throw assertionRefused('steam', 'return_to');
      const steamId = claimedIdForm.exec(fields['openid.claimed_id'] ?? '')?.[1];
      if (!steamId || fields['openid.identity'] !== fields['openid.claimed_id']) throw assertionRefused('steam', 'claimed_id');
      const signed = (fields['openid.signed'] ?? '').split(',');
      if (!fields['openid.sig'] || mustBeSigned.some((name) => !signed.includes(name)) || signed.some((name) => fields[`openid.${name}`] === undefined)) {
        throw assertionRefused('steam', 'signed fields');
      }
      await checkAuthentication(config.openidUrl, fields, fetcher);
      return steamProfile(config, steamId, fetcher);
    },
  };
}

/** The callback's query parameters, as the client sent them: a JSON object of strings. */
function openIdFieldsOf(code: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(code);
  } catch {
    throw badParam('code');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw badParam('code');
  const fields: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') throw badParam('code');
    if (name.startsWith('openid.')) fields[name] = value;
  }
  return fields;
}

/** OpenID 2.0 §11.4.2: the provider checks its own signature; a reused nonce is refused there too. */
async function checkAuthentication(openidUrl: string, fields: Record<string, string>, fetcher: ReturnType<typeof providerFetcher>): Promise<void> {
  const body = new URLSearchParams({ ...fields, 'openid.mode': 'check_authentication' });
  const response = await fetcher(openidUrl, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/plain' } });
  if (response.status >= 500) throw providerUnavailable('steam');
  const text = await response.text();
  const answer = new Map(
    text.split('\n').flatMap((line) => {
      const colon = line.indexOf(':');
      return colon > 0 ? [[line.slice(0, colon).trim(), line.slice(colon + 1).trim()] as const] : [];
    }),
  );
  if (answer.get('is_valid') === 'true' && response.status === 200) return;
  if (answer.has('is_valid') || response.status === 400) throw providerRefused('steam');
  throw new ProviderAnswerError('steam', 'check_authentication answer', response.status);
}
