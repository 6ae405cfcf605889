import type { SignInConfig } from '../../../../config.ts';
import { identityOf, type ExternalIdentity } from '../identity.ts';
import { ClientCredentialsRefused, providerUnavailable } from '../provider-errors.ts';
import { endpoint } from '../../../../outbound/endpoint.ts';
import { providerFetcher, readProviderJson } from '../provider-http.ts';

/**
 * The display name, picture and profile address of a verified SteamID: from the Web API's
 * GetPlayerSummaries when STEAM_WEB_API_KEY is set, else from the public community profile XML.
 * The SteamID is proven already, so a profile Steam does not describe (none found) still signs in,
 * titled by its id.
 */
export async function steamProfile(config: NonNullable<SignInConfig['steam']>, steamId: string, fetcher: ReturnType<typeof providerFetcher>): Promise<ExternalIdentity> {
  const communityOrigin = new URL(config.openidUrl).origin;
  const fallbackUrl = `${communityOrigin}/profiles/${steamId}`;
  if (config.webApiKey) {
    const url = endpoint(config.apiUrl, '/ISteamUser/GetPlayerSummaries/v2/');
    url.searchParams.set('key', config.webApiKey);
    url.searchParams.set('steamids', steamId);
    const response = await fetcher(url, { headers: { accept: 'application/json' } });
    // 401/403 here is about the Web API key, not the user: the operator's to fix (logged).
    if (response.status === 401 || response.status === 403) throw new ClientCredentialsRefused('steam', 'Web API refused STEAM_WEB_API_KEY', response.status);
    const answer = await readProviderJson('steam', response);
    const players = (answer.response as { players?: unknown } | undefined)?.players;
    const player = Array.isArray(players) ? (players.find((item) => (item as { steamid?: unknown })?.steamid === steamId) as Record<string, unknown> | undefined) : undefined;
    return identityOf('steam', { id: steamId, titles: [player?.personaname], profileUrl: player?.profileurl ?? fallbackUrl, pictureUrl: player?.avatarfull });
  }
  const response = await fetcher(`${fallbackUrl}?xml=1`, { headers: { accept: 'text/xml' } });
  if (response.status >= 500) throw providerUnavailable('steam');
  const xml = response.status === 200 ? await response.text() : '';
  const listed = xmlField(xml, 'steamID64') === steamId;
  return identityOf('steam', {
    id: steamId,
    titles: [listed ? xmlField(xml, 'steamID') : undefined],
    profileUrl: fallbackUrl,
    pictureUrl: listed ? xmlField(xml, 'avatarFull') : undefined,
  });
}

/** The text of a top-level element of Steam's profile XML (CDATA or escaped text). */
function xmlField(xml: string, name: string): string | undefined {
  const match = new RegExp(`<${name}>(?:<!\\[CDATA\\[([\\s\\S]*?)\\]\\]>|([^<]*))</${name}>`).exec(xml);
  if (!match) return undefined;
  if (match[1] !== undefined) return match[1];
  return match[2]!.replace(/&(lt|gt|quot|apos|amp);/g, (_, entity: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[entity]!);
}
