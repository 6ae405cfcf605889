import { createHash } from 'node:crypto';
import { json, serveFake } from '../fake-providers/common.ts';

/**
 * A fake of itch.io's server-side API (https://api.itch.io, what ITCH_API_URL points at) for deploy keys:
 * the key check, the key's profile and games, and the wharf calls butler makes. It runs on its own
 * loopback port through the sign-in fakes' serveFake (tests/support/fake-providers/common.ts); the
 * sign-in fake (fake-providers/itch.ts) keeps answering OAuth tokens, this one answers API keys.
 *
 * What it copies, and from where:
 * - Paths and client behaviour: itchio/go-itchio (the official binding, which itch's own maintainer points
 *   API users to, itchio/itch.io#1498): endpoints_profile.go (GET /profile -> {user},
 *   GET /profile/games -> {games}), endpoints_wharf.go (GET /wharf/status -> {success},
 *   GET /wharf/channels?target= -> {channels: {name: channel}}, GET /wharf/channels/{name}?target= ->
 *   {channel}, POST /wharf/builds target/channel/user_version -> {build: {id, upload_id, parent_build: {id}}},
 *   POST /wharf/builds/{id}/failures message/fatal -> {}). go-itchio sends an API key as the bare
 *   `Authorization: KEY` (itchio.go ClientWithKey + oauth.go getAuthHeader) and an OAuth token as
 *   `Authorization: Bearer TOKEN`; itch's docs (https://itch.io/docs/api/serverside) give
 *   `Authorization: Bearer YOUR_API_KEY`. Both are accepted here.
 * - Wire format: snake_case JSON (the docs: "API responses are JSON-encoded, and use snake_case";
 *   go-itchio camelify.go turns it into its camelCase structs of types.go). Errors are
 *   `{"errors": ["..."]}` (go-itchio http_helpers.go ParseAPIResponse reads them whatever the status).
 * - GET /credentials/info: `{type: "key", scopes?: [...], expires_at?: ..., oauth_application_id?: n}`.
 *   A key made by an OAuth app carries its scopes: `{"oauth_application_id":…,"scopes":["profile"],"type":"key"}`
 *   (itchio/itch.io#1664). A key the user generates in their settings is unscoped ("API keys that you
 *   generate from your user settings are unscoped", docs) and the endpoint then answers only
 *   `{"type":"key"}` (itchio/itch.io#1455). So: `scopes` absent means every scope, not none.
 * - Scopes: "Having access to a scope gives access to all its subscopes. For example, profile gives access
 *   to profile:me" (docs). /profile needs profile:me, /profile/games profile:games (itchio/itch.io#1498),
 *   wharf calls `wharf` (the scope butler's own login asks for: butler mansion/authenticate.go).
 *   A missing scope answers `{"errors":["api key does not permit `profile:games`"]}` (the wording of
 *   itchio/itch.io#1664); the status of that refusal is not documented anywhere we found: 403 here.
 * - Unknown key: 401 `{"errors":["invalid key"]}` (itchio/itch#1118; the same as the sign-in fake).
 *   Unknown path: 404 `{"errors":["invalid api endpoint"]}` (itchio/itch.io#1498).
 *   A target that is not one of the key's games: 400 `{"errors":["invalid game"]}` ("The API returns
 *   'invalid game' whenever you're trying to access a game that you don't have access to or that just
 *   plain doesn't exist", itchio/itch#1771; status 400 in itchio/itch#2203).
 */

type FakeItchUser = {
  id: number;
  username: string;
  display_name?: string | null;
  /** The user's page, https://{username}.itch.io by default. */
  url?: string;
  cover_url?: string | null;
  developer?: boolean;
  press_user?: boolean;
};

/** A game page as the API writes it (snake_case); extra members are passed through as they are. */
export type FakeItchGame = {
  id: number;
  title: string;
  /** https://{developer}.itch.io/{game}: what a butler target `developer/game` names. */
  url: string;
  cover_url?: string | null;
  short_text?: string;
  type?: 'default' | 'html' | 'flash' | 'unity' | 'java';
  classification?: string;
  published?: boolean;
  [member: string]: unknown;
};

export type FakeItchKey = {
  user: FakeItchUser;
  games?: FakeItchGame[];
  /** Absent: an unscoped key (generated in the user's settings), allowed everything. */
  scopes?: string[];
  /** 'jwt' for the short-lived tokens itch hands to games. */
  type?: 'key' | 'jwt';
  expires_at?: string;
  oauth_application_id?: number;
};

/** One request the fake received. The key itself is never kept: only how it came and a fingerprint. */
type FakeItchApiRequest = {
  method: string;
  path: string;
  query: Record<string, string>;
  form: Record<string, string> | undefined;
  authorization: 'none' | 'bearer' | 'bare';
  /** fingerprintKey(key) of the credential sent, if any. */
  keyFingerprint: string | undefined;
  /** The credential was one of the fake's keys. */
  known: boolean;
  status: number;
};

type FakeItchBuild = {
  id: number;
  gameId: number;
  /** `developer/game` (or the game id) as butler sent it. */
  target: string;
  channel: string;
  userVersion: string | undefined;
  parentId: number | undefined;
  keyFingerprint: string;
  state: 'started' | 'failed';
  failure?: { message: string; fatal: boolean };
};

export type FakeItchApi = {
  /** The API address: what ITCH_API_URL (and butler's --address) is set to. */
  url: string;
  /** Every request, oldest first (without keys). */
  requests: FakeItchApiRequest[];
  /** Every build created through POST /wharf/builds. */
  builds: FakeItchBuild[];
  /** Add or replace a key (takes effect on the next request). */
  setKey(key: string, account: FakeItchKey): void;
  /** Forget a key, as when its owner revokes it: it answers 401 from then on. */
  revokeKey(key: string): void;
  stop(): Promise<void>;
};

/** A short stable name for a key, for logs and assertions that must not contain the key. */
export function fingerprintKey(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 12);
}

/** Whether granted scopes allow a needed one (no scopes at all: an unscoped key, allowed everything). */
function scopePermits(granted: string[] | undefined, needed: string): boolean {
  if (!granted) return true;
  return granted.some((scope) => needed === scope || needed.startsWith(`${scope}:`));
}

/** The credential of a request: `Authorization: Bearer KEY` (itch docs) or `Authorization: KEY` (go-itchio). */
function credentialOf(request: Request): { key: string | undefined; authorization: FakeItchApiRequest['authorization'] } {
  const header = request.headers.get('authorization')?.trim();
  if (!header) return { key: undefined, authorization: 'none' };
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer) return { key: bearer[1], authorization: 'bearer' };
  return { key: header, authorization: 'bare' };
}

/** `developer/game` of a game page address, lowercased (butler lowercases targets: go-itchio util.go ParseSpec). */
function targetOfGame(game: FakeItchGame): string | undefined {
  try {
    const url = new URL(game.url);
    const developer = url.hostname.toLowerCase().replace(/\.itch\.io$/, '');
    const slug = url.pathname.split('/').filter(Boolean)[0];
    return slug && developer !== url.hostname.toLowerCase() ? `${developer}/${slug.toLowerCase()}` : undefined;
  } catch {
    return undefined;
  }
}

function userJson(user: FakeItchUser) {
  return {
    id: user.id,
    username: user.username,
    display_name: user.display_name ?? null,
    url: user.url ?? `https://${user.username}.itch.io`,
    cover_url: user.cover_url ?? null,
    gamer: true,
    developer: user.developer ?? true,
    press_user: user.press_user ?? false,
  };
}

function gameJson(game: FakeItchGame, user: FakeItchUser) {
  return {
    type: 'default',
    classification: 'game',
    short_text: '',
    cover_url: null,
    published: true,
    min_price: 0,
    can_be_bought: false,
    has_demo: false,
    in_press_system: false,
    user: userJson(user),
    user_id: user.id,
    ...game,
  };
}

const refusal = (status: number, message: string) => json({ errors: [message] }, status);

export function startFakeItchApi(options: { keys: Record<string, FakeItchKey> }): FakeItchApi {
  const keys = new Map(Object.entries(options.keys));
  const requests: FakeItchApiRequest[] = [];
  const builds: FakeItchBuild[] = [];
  /** Head build of each game's channel: `${gameId}:${channel}` -> build id. */
  const heads = new Map<string, number>();
  let nextBuildId = 100_001;

  const gameOfTarget = (account: FakeItchKey, target: string | undefined) => {
    if (!target) return undefined;
    const wanted = target.toLowerCase();
    return (account.games ?? []).find((game) => String(game.id) === wanted || targetOfGame(game) === wanted);
  };

  const channelJson = (gameId: number, name: string) => {
    const head = heads.get(`${gameId}:${name}`);
    const build = head === undefined ? undefined : builds.find((item) => item.id === head);
    return {
      name,
      tags: name,
      upload: { id: gameId * 10, filename: `${name}.zip`, storage: 'build', channel_name: name, build_id: head ?? null },
      head: build ? { id: build.id, user_version: build.userVersion ?? null, state: 'completed' } : null,
      pending: null,
    };
  };

  function answer(request: Request, url: URL, form: Record<string, string> | undefined, key: string | undefined): Response {
    const account = key === undefined ? undefined : keys.get(key);
    if (!account) return refusal(401, 'invalid key');
    const need = (scope: string) => (scopePermits(account.scopes, scope) ? undefined : refusal(403, `api key does not permit \`${scope}\``));
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const params = { ...Object.fromEntries(url.searchParams), ...form };
    const get = request.method === 'GET';
    const post = request.method === 'POST';

    if (get && path === '/credentials/info') {
      return json({
        type: account.type ?? 'key',
        ...(account.scopes && { scopes: account.scopes }),
        ...(account.expires_at && { expires_at: account.expires_at }),
        ...(account.oauth_application_id !== undefined && { oauth_application_id: account.oauth_application_id }),
      });
    }
    if (get && path === '/profile') return need('profile:me') ?? json({ user: userJson(account.user) });
    if (get && path === '/profile/games') return need('profile:games') ?? json({ games: (account.games ?? []).map((game) => gameJson(game, account.user)) });
    if (get && path === '/wharf/status') return need('wharf') ?? json({ success: true });

    const channelMatch = /^\/wharf\/channels(?:\/([^/]+))?$/.exec(path);
    if (get && channelMatch) {
      const refused = need('wharf');
      if (refused) return refused;
      const game = gameOfTarget(account, params.target);
      if (!game) return refusal(400, 'invalid game');
      if (channelMatch[1] !== undefined) {
        const name = decodeURIComponent(channelMatch[1]);
        if (!heads.has(`${game.id}:${name}`)) return refusal(404, 'channel not found');
        return json({ channel: channelJson(game.id, name) });
      }
      const names = [...heads.keys()].filter((item) => item.startsWith(`${game.id}:`)).map((item) => item.slice(`${game.id}:`.length));
      return json({ channels: Object.fromEntries(names.map((name) => [name, channelJson(game.id, name)])) });
    }

    if (post && path === '/wharf/builds') {
      const refused = need('wharf');
      if (refused) return refused;
      const game = gameOfTarget(account, params.target);
      if (!game) return refusal(400, 'invalid game');
      const channel = params.channel?.trim();
      if (!channel) return refusal(400, 'channel: expected string');
      const parentId = heads.get(`${game.id}:${channel}`);
      const build: FakeItchBuild = {
        id: nextBuildId++,
        gameId: game.id,
        target: params.target!,
        channel,
        userVersion: params.user_version || undefined,
        parentId,
        keyFingerprint: fingerprintKey(key!),
        state: 'started',
      };
      builds.push(build);
      heads.set(`${game.id}:${channel}`, build.id);
      return json({ build: { id: build.id, upload_id: game.id * 10, ...(parentId !== undefined && { parent_build: { id: parentId } }) } });
    }

    const failureMatch = /^\/wharf\/builds\/(\d+)\/failures$/.exec(path);
    if (post && failureMatch) {
      const refused = need('wharf');
      if (refused) return refused;
      const build = builds.find((item) => item.id === Number(failureMatch[1]) && item.keyFingerprint === fingerprintKey(key!));
      if (!build) return refusal(400, 'invalid build');
      build.state = 'failed';
      build.failure = { message: params.message ?? '', fatal: params.fatal !== undefined };
      return json({});
    }

    return refusal(404, 'invalid api endpoint');
  }

  const server = serveFake('itch', () => {}, (request, url, form) => {
    const { key, authorization } = credentialOf(request);
    const response = answer(request, url, form, key);
    requests.push({
      method: request.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      form,
      authorization,
      keyFingerprint: key === undefined ? undefined : fingerprintKey(key),
      known: key !== undefined && keys.has(key),
      status: response.status,
    });
    return response;
  });

  return {
    url: server.url.origin,
    requests,
    builds,
    setKey: (key, account) => void keys.set(key, account),
    revokeKey: (key) => void keys.delete(key),
    stop: () => server.stop(true),
  };
}
