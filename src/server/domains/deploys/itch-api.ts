import type { AvailableSite } from '../../../shared/schemas/deploy.ts';
import { refusal } from '../../errors.ts';
import { boundedFetch, OutboundUnavailable } from '../../outbound/bounded-fetch.ts';
import { endpoint } from '../../outbound/endpoint.ts';
import { parseJsonWithExactIds } from '../../outbound/json-exact-ids.ts';

/**
 * itch.io's server-side API as deploy keys use it (ITCH_API_URL): `Authorization: Bearer KEY`. Calls time
 * out after 10 s, follow no redirects and read at most 1 MiB (outbound/bounded-fetch.ts). Nothing here logs, and no
 * error carries the key or itch.io's answer body.
 */

const keysPage = 'itch.io/user/settings/api-keys';

/** Spec §5: keys made on itch.io's API keys page ('web') or by `butler login` ('wharf') can push builds. */
const pushingSources = new Set(['web', 'wharf']);

/**
 * Scopes a deploy key needs: its games (available sites) and wharf (what butler pushes with). "Having
 * access to a scope gives access to all its subscopes" (itch.io's server-side API docs).
 */
const neededScopes = ['profile:games', 'wharf'];
const scopePermits = (granted: string[], needed: string) => granted.some((scope) => needed === scope || needed.startsWith(`${scope}:`));

const itchKeyRefused = () =>
  refusal('bad_param', `itch.io refused this key: copy it again from ${keysPage}`, 'key_refused', { field: 'key' });

const itchKeyCannotPush = () =>
  refusal(
    'bad_param',
    `This itch.io key cannot push builds (a key made by signing in with itch.io only reads the profile): create an API key at ${keysPage} and use that one`,
    'key_cannot_push',
    { field: 'key' },
  );

const itchUnavailable = () => refusal('timeout', 'itch.io did not answer: try again later', 'provider_unavailable', { provider: 'itch' });
const itchUnexpected = () => refusal('unexpected_error', 'itch.io answered in a way this server does not understand: try again later', 'provider_answer', { provider: 'itch' });

type ItchAnswer = { status: number; json: Record<string, unknown> | undefined };

async function callItch(apiUrl: string, path: string, key: string): Promise<ItchAnswer> {
  let response: Response;
  try {
    response = await boundedFetch(endpoint(apiUrl, path), { headers: { authorization: `Bearer ${key}`, accept: 'application/json' } });
  } catch (error) {
    // No answer (timeout, unreachable) is itch.io's unavailability; an answer too large is not understood.
    if (error instanceof OutboundUnavailable) throw itchUnavailable();
    throw itchUnexpected();
  }
  if (response.status >= 500) throw itchUnavailable();
  let json: Record<string, unknown> | undefined;
  try {
    const parsed = parseJsonWithExactIds(await response.text());
    json = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, json };
}

/** An unknown or revoked key: 401 (itch.io's `{"errors": ["invalid key"]}`). */
const unknownKey = (answer: ItchAnswer) => answer.status === 401;
/** Known but not allowed (a missing scope: 403, or 200 with errors on older deployments). */
const notPermitted = (answer: ItchAnswer) => answer.status === 403 || (answer.status === 200 && Array.isArray(answer.json?.errors));

/**
 * A key worth storing (spec §5): itch.io knows it (/profile); /credentials/info shows a key (not a
 * game's short-lived jwt) whose scopes, when it has any (keys generated in the user's settings are
 * unscoped: everything), allow its games and wharf, and whose source, when itch.io tells it, is web or
 * wharf; and it can read the account's games (/profile/games). Keys made by an OAuth sign-in, like this
 * product's own (scope profile:me), are refused as unable to push.
 */
export async function checkItchKey(apiUrl: string, key: string): Promise<void> {
  const profile = await callItch(apiUrl, '/profile', key);
  if (unknownKey(profile)) throw itchKeyRefused();
  if (notPermitted(profile)) throw itchKeyCannotPush();
  if (profile.status !== 200 || typeof profile.json?.user !== 'object' || profile.json.user === null) throw itchUnexpected();
  const info = await callItch(apiUrl, '/credentials/info', key);
  if (unknownKey(info)) throw itchKeyRefused();
  if (notPermitted(info)) throw itchKeyCannotPush();
  if (info.status === 200 && info.json) {
    const { type, scopes, source } = info.json;
    if (type !== undefined && type !== 'key') throw itchKeyCannotPush();
    if (Array.isArray(scopes) && !neededScopes.every((needed) => scopePermits(scopes.filter((scope): scope is string => typeof scope === 'string'), needed))) {
      throw itchKeyCannotPush();
    }
    if (typeof source === 'string' && !pushingSources.has(source)) throw itchKeyCannotPush();
  }
  const games = await callItch(apiUrl, '/profile/games', key);
  if (unknownKey(games)) throw itchKeyRefused();
  if (notPermitted(games)) throw itchKeyCannotPush();
  if (games.status !== 200 || !Array.isArray(games.json?.games)) throw itchUnexpected();
}

/** 'developer/game' of a game page address (https://developer.itch.io/game), else null. */
function siteOfGameUrl(url: unknown): string | null {
  if (typeof url !== 'string') return null;
  const match = /^https?:\/\/([a-z0-9][a-z0-9_-]*)\.itch\.io\/([a-z0-9][a-z0-9_-]*)\/?$/i.exec(url);
  return match ? `${match[1]!.toLowerCase()}/${match[2]!.toLowerCase()}` : null;
}

const text = (value: unknown, max: number): string | null => (typeof value === 'string' && value.length > 0 ? value.slice(0, max) : null);
const httpsUrl = (value: unknown): string | null => (typeof value === 'string' && /^https?:\/\/[^\s]{1,2000}$/.test(value) ? value : null);

/** The key's games (GET /profile/games): the sites a deploy can pick from. */
export async function listItchGames(apiUrl: string, key: string): Promise<AvailableSite[]> {
  const answer = await callItch(apiUrl, '/profile/games', key);
  if (unknownKey(answer)) throw itchKeyRefused();
  if (notPermitted(answer)) throw itchKeyCannotPush();
  if (answer.status !== 200 || !Array.isArray(answer.json?.games)) throw itchUnexpected();
  const sites: AvailableSite[] = [];
  for (const game of answer.json.games as unknown[]) {
    if (typeof game !== 'object' || game === null) continue;
    const record = game as Record<string, unknown>;
    const id = typeof record.id === 'string' || typeof record.id === 'number' ? String(record.id) : null;
    if (id === null) continue;
    sites.push({
      id,
      title: (text(record.title, 300) ?? id).replace(/[\p{Cc}\p{Cs}]/gu, ''),
      pictureUrl: httpsUrl(record.cover_url),
      site: siteOfGameUrl(record.url),
    });
  }
  return sites;
}
