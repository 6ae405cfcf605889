import { createHmac, timingSafeEqual } from 'node:crypto';
import { json, randomToken, redirect, serveFake, type FakeContext } from './common.ts';

export type SteamKnobs = {
  /** false: check_authentication answers is_valid:false (a forged or altered assertion). */
  isValid: boolean;
  /** Signs this claimed id instead of the approved account's (a claimed id of the wrong form). */
  claimedId: string | undefined;
};

const ns = 'http://specs.openid.net/auth/2.0';
const identifierSelect = `${ns}/identifier_select`;
const signedFields = ['signed', 'op_endpoint', 'claimed_id', 'identity', 'return_to', 'response_nonce', 'assoc_handle'];

/**
 * Steam community, OpenID 2.0 provider at /openid/login (STEAM_OPENID_URL): checkid_setup approves at
 * once and sends the browser to return_to with a signed id_res assertion (claimed id
 * https://steamcommunity.com/openid/id/<SteamID64>); check_authentication (POST, stateless mode)
 * verifies the signature and refuses a nonce seen before. Also the public profile XML
 * (/profiles/<id>?xml=1) and the Web API's GetPlayerSummaries under /api (STEAM_API_URL = origin/api).
 */
export function startFakeSteam(context: FakeContext, webApiKey: string, knobs: SteamKnobs) {
  const signingKey = randomToken();
  const usedNonces = new Set<string>();
  const opEndpoint = () => `${context.origin}/openid/login`;
  const signatureOf = (fields: Record<string, string>, signed: string[]) =>
    createHmac('sha256', signingKey)
      .update(signed.map((name) => `${name}:${fields[`openid.${name}`] ?? ''}\n`).join(''))
      .digest('base64');

  const checkidSetup = (url: URL): Response => {
    const query = url.searchParams;
    const returnTo = query.get('openid.return_to');
    const realm = query.get('openid.realm');
    if (query.get('openid.ns') !== ns || !returnTo || !realm || !returnTo.startsWith(realm) || query.get('openid.identity') !== identifierSelect || query.get('openid.claimed_id') !== identifierSelect) {
      return new Response('Invalid OpenID request', { status: 400 });
    }
    const identity = context.identity();
    const claimedId = knobs.claimedId ?? `https://steamcommunity.com/openid/id/${identity.id}`;
    const fields: Record<string, string> = {
      'openid.ns': ns,
      'openid.mode': 'id_res',
      'openid.op_endpoint': opEndpoint(),
      'openid.claimed_id': claimedId,
      'openid.identity': claimedId,
      'openid.return_to': returnTo,
      'openid.response_nonce': `${new Date().toISOString().slice(0, 19)}Z${randomToken(9)}`,
      'openid.assoc_handle': '1234567890',
      'openid.signed': signedFields.slice(1).join(','),
    };
    fields['openid.sig'] = signatureOf(fields, signedFields.slice(1));
    const back = new URL(returnTo);
    for (const [name, value] of Object.entries(fields)) back.searchParams.set(name, value);
    return redirect(back.href);
  };

  const checkAuthentication = (form: Record<string, string>): Response => {
    const answer = (valid: boolean) => new Response(`ns:${ns}\nis_valid:${valid}\n`, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
    const signed = (form['openid.signed'] ?? '').split(',');
    const expected = Buffer.from(signatureOf(form, signed));
    const given = Buffer.from(form['openid.sig'] ?? '');
    const nonce = form['openid.response_nonce'] ?? '';
    const valid = knobs.isValid && signed.includes('response_nonce') && expected.length === given.length && timingSafeEqual(expected, given) && !usedNonces.has(nonce);
    if (valid) usedNonces.add(nonce);
    return answer(valid);
  };

  const player = (steamId: string) => {
    const identity = context.identity();
    if (identity.id !== steamId) return undefined;
    return {
      steamid: steamId,
      communityvisibilitystate: 3,
      profilestate: 1,
      personaname: identity.name ?? identity.login,
      profileurl: identity.profileUrl ?? `https://steamcommunity.com/id/${identity.login}/`,
      avatarfull: identity.avatarUrl ?? `https://avatars.steamstatic.com/${steamId}_full.jpg`,
    };
  };

  return serveFake('steam', context.log, (request, url, form) => {
    if (url.pathname === '/openid/login') {
      if (request.method === 'GET' && url.searchParams.get('openid.mode') === 'checkid_setup') return checkidSetup(url);
      if (request.method === 'POST' && form?.['openid.mode'] === 'check_authentication') return checkAuthentication(form);
      return new Response('Invalid OpenID request', { status: 400 });
    }
    const profile = /^\/profiles\/([0-9]{17})\/?$/.exec(url.pathname);
    if (request.method === 'GET' && profile && url.searchParams.get('xml') === '1') {
      const found = player(profile[1]!);
      const xml = found
        ? `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><profile><steamID64>${found.steamid}</steamID64><steamID><![CDATA[${found.personaname}]]></steamID><onlineState>offline</onlineState><privacyState>public</privacyState><visibilityState>3</visibilityState><avatarIcon><![CDATA[${found.avatarfull.replace('_full', '')}]]></avatarIcon><avatarFull><![CDATA[${found.avatarfull}]]></avatarFull><vacBanned>0</vacBanned></profile>`
        : `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><response><error><![CDATA[The specified profile could not be found.]]></error></response>`;
      return new Response(xml, { headers: { 'content-type': 'text/xml; charset=utf-8' } });
    }
    if (request.method === 'GET' && url.pathname === '/api/ISteamUser/GetPlayerSummaries/v2/') {
      if (url.searchParams.get('key') !== webApiKey) return new Response('<html><body><h1>Forbidden</h1>Access is denied. Retrying will not help. Please verify your <pre>key=</pre> parameter.</body></html>', { status: 403, headers: { 'content-type': 'text/html' } });
      const players = (url.searchParams.get('steamids') ?? '').split(',').flatMap((id) => player(id) ?? []);
      return json({ response: { players } });
    }
    return new Response('Not Found', { status: 404 });
  });
}
