import { z } from 'zod';
import { cloudPlaySettingsSchema, iceServerSchema } from '../../shared/schemas/cloud-play.ts';
import { privilegeNames } from '../../shared/schemas/privileges.ts';
import { parseFreeSpaceFloor } from '../storage/free-space.ts';
import { booleanText, clientText, commaList, httpUrl, port, urlText } from './parsers.ts';
import { optional, withDefault } from './setting.ts';

/**
 * Every environment variable Cartridge reads, each declared once: its name, how its text is parsed,
 * its default and the line --help shows (the README's settings table lists the same names:
 * tests/unit/readme.test.ts). loadConfig (config.ts) parses them in this order, so the first bad one
 * named is the first here, and turns the values into the Config the server uses.
 *
 * Add a setting: one line here, then its use in config.ts's configOf, then its row in the README.
 */
export const settings = {
  PORT: withDefault(port, '3000', 'HTTP port of the app (0 picks a free one)'),
  HOST: withDefault(z.string().min(1), '0.0.0.0', 'address to listen on'),
  DATA_DIR: withDefault(z.string().min(1), './data', 'folder for the embedded database, blobs and the generated secret key'),
  DATABASE_URL: optional(urlText(['postgres:', 'postgresql:']), '(embedded PGlite in DATA_DIR/db)', 'postgres://user:pass@host:5432/db to use PostgreSQL'),
  STORAGE_URL: withDefault(
    z.string().regex(/^(file:.*|s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?)$/, 'must be file:, file:/path or s3://bucket[/prefix]'),
    'file:',
    'blob store: file: (DATA_DIR/blobs), file:/path, or s3://bucket[/prefix]',
  ),
  PUBLIC_URL: optional(urlText(['http:', 'https:']), 'http://localhost:PORT', 'address users reach the app at (links, cookies, OAuth)'),
  PLAY_ORIGIN: optional(urlText(['http:', 'https:']), 'http://127.0.0.1:PLAY_PORT', 'separate origin serving HTML5 games'),
  PLAY_PORT: optional(port, 'PORT+1', 'port of the play origin when it is served by this process'),
  SECRET_KEY: optional(z.string().min(32, 'must be at least 32 characters'), '(generated into DATA_DIR/secret.key)', 'at least 32 characters; encrypts stored keys and signs URLs'),
  SECRET_KEY_PREVIOUS: optional(
    z.string().min(32, 'must be at least 32 characters'),
    '(none)',
    'the SECRET_KEY before a rotation: what it sealed still opens (new seals and signatures use SECRET_KEY)',
    { secret: true },
  ),
  APP_NAME: withDefault(z.string().min(1).max(64), 'Cartridge', 'name shown in page titles and the header'),
  SOCIAL_LINKS: withDefault(
    commaList
      .pipe(z.array(z.string().regex(/^[^=]{1,40}=https?:\/\/\S+$/, 'must be Name=https://url pairs separated by commas')))
      .transform((pairs) => pairs.map((pair) => ({ name: pair.slice(0, pair.indexOf('=')).trim(), href: pair.slice(pair.indexOf('=') + 1) }))),
    '',
    'footer links, comma-separated Name=https://url pairs',
    { shown: '(none)' },
  ),
  REPORT_EMAIL: optional(z.email('must be an e-mail address').max(254), '(none)', 'address the store\'s "Report content" mail link is sent to'),
  AUTH_REQUIRED: withDefault(booleanText, 'false', 'true: the whole app requires sign-in'),
  REGISTRATION: withDefault(z.enum(['open', 'closed']), 'open', 'open | closed (only the first user may register)'),
  DEFAULT_PRIVILEGES: withDefault(commaList.pipe(z.array(z.enum(privilegeNames))), 'create_project', 'comma-separated privileges every new user gets'),
  SESSION_DAYS: withDefault(z.coerce.number().positive().max(3650), '30', 'lifetime of a browser session, renewed by use'),
  SIGN_IN_LIMIT_ACCOUNT: withDefault(z.coerce.number().int().min(1).max(100_000), '10', 'failed password sign-ins allowed per account in 15 minutes'),
  SIGN_IN_LIMIT_ADDRESS: withDefault(z.coerce.number().int().min(1).max(100_000), '50', 'failed password sign-ins allowed per client address in 15 minutes'),
  PASSWORD_HASH_MEMORY_KIB: withDefault(
    z.coerce.number().int().min(64).max(4 * 1024 * 1024),
    '65536',
    'memory of each Argon2id password hash, in KiB (64 MiB; existing hashes keep their own cost)',
  ),
  PASSWORD_HASH_TIME_COST: withDefault(z.coerce.number().int().min(1).max(100), '2', 'passes of each Argon2id password hash'),
  TRUST_PROXY: withDefault(booleanText, 'false', 'true behind a load balancer: take the client address from X-Forwarded-For'),
  LOG_LEVEL: withDefault(z.enum(['silent', 'error', 'info', 'debug']), 'info', 'silent | error | info | debug'),
  QUOTA_PACKAGE_SIZE: withDefault(z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER), '10737418240', 'default largest package of a project, in bytes (0 = no limit)'),
  QUOTA_BRANCH_VERSIONS_COUNT: withDefault(z.coerce.number().int().min(0).max(2_147_483_647), '20', 'default most versions a branch keeps (0 = no limit)'),
  QUOTA_BRANCH_VERSIONS_DAYS: withDefault(
    z.coerce.number().min(0).max(36_500),
    '0',
    'default days a branch keeps a version after its latest publish there; its current one always stays (0 = indefinitely)',
  ),
  QUOTA_BRANCH_VERSIONS_NON_CURRENT_DAYS: withDefault(
    z.coerce.number().min(0).max(36_500),
    '90',
    'default days a branch keeps a version after it stopped being current there (0 = indefinitely)',
  ),
  QUOTA_CONTENT_IMAGES: withDefault(
    z.coerce.number().int().min(0).max(2_147_483_647),
    '2000',
    'most images pasted into descriptions a project may hold, uploads under way included (0 = no limit)',
  ),
  CONTENT_IMAGE_GRACE_HOURS: withDefault(
    z.coerce.number().min(0).max(24 * 3650),
    '24',
    'hours an image no description references is kept before it is collected (an upload never finished goes an hour after its token expired)',
  ),
  IMAGE_WORKER_CONCURRENCY: withDefault(
    z.coerce.number().int().min(1).max(64),
    '1',
    'images decoded and encoded at once, in the image worker process (one per user at a time, users served in turn)',
  ),
  IMAGE_WORKER_THREADS: withDefault(
    z.coerce.number().int().min(0).max(256),
    '0',
    'libvips threads per image in the image worker (0 = one per core; the worker runs at a lower priority than the server)',
  ),
  IMAGE_WORKER_MEMORY_MB: withDefault(
    z.coerce.number().int().min(64).max(1024 * 1024),
    '2048',
    'memory cap of the image worker process, in MiB (a 20 MP photo peaks near 0.9 GB, a 40 MP one near 1.8 GB): past it the image being processed is refused and the worker restarted',
  ),
  // Below the server's idle timeout (120 s, serve.ts), which would cut the request without a reply.
  IMAGE_FINALIZE_WAIT_SECONDS: withDefault(
    z.coerce.number().positive().max(110),
    '90',
    'longest an image finalize waits for its turn and processing before answering 503 timeout (the image stays queued: finalize again to keep waiting)',
  ),
  ORPHAN_PACKAGE_DAYS: withDefault(
    z.coerce.number().min(0).max(36_500),
    '7',
    'days a package in no version is kept after it was last touched (uploaded, renamed, retagged, or left a deleted version) before it is collected (0 = never)',
  ),
  UPLOAD_PART_SIZE: withDefault(
    z.coerce.number().int().min(1024).max(1024 ** 3),
    '8388608',
    'bytes per package upload part the server asks clients to send (1024..1073741824)',
  ),
  PACK_SIZE: withDefault(
    z.coerce.number().int().min(64 * 1024).max(1024 ** 3),
    '33554432',
    'bytes of package chunks stored together in one pack blob (65536..1073741824; fewer, larger blobs: fewer files to sync and S3 requests)',
  ),
  UPLOAD_HOURS: withDefault(z.coerce.number().positive().max(24 * 365), '24', 'hours a package upload token stays valid (parts and finalize)'),
  DOWNLOAD_URL_MINUTES: withDefault(
    z.coerce.number().positive().max(60 * 24 * 365),
    '60',
    'minutes a signed package download URL works (a download already started finishes)',
  ),
  DOWNLOAD_CACHE_SIZE: withDefault(
    z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    '10737418240',
    'bytes of local disk (DATA_DIR/cache/downloads) for ready-made ZIPs and archives, least recently used dropped first (0 = none: downloads are generated for every request)',
  ),
  STORAGE_FREE_FLOOR: withDefault(
    z.string().refine((value) => parseFreeSpaceFloor(value) !== undefined, 'bytes (1073741824) or a share of the disk (5%)'),
    '1073741824',
    'free space the download cache always leaves on its disk for blobs and the database, in bytes or as a share of the disk (5%): the cache writes nothing past it and gives its files up as soon as free space falls under it',
  ),
  JOB_WORKERS: withDefault(z.coerce.number().int().min(0).max(64), '1', 'jobs this process runs at once (retention, ...); 0 = this process runs no jobs'),
  DEPLOY_WORKERS: withDefault(
    z.coerce.number().int().min(0).max(64),
    '2',
    'deploys to storefronts this process runs at once, besides JOB_WORKERS (with JOB_WORKERS=0, none)',
  ),
  JOB_POLL_MS: withDefault(z.coerce.number().int().min(10).max(3_600_000), '1000', 'how often an idle job worker looks for due jobs, in milliseconds'),
  JOB_LEASE_MS: withDefault(
    z.coerce.number().int().min(300).max(86_400_000),
    '60000',
    'how long a running job stays with its process without a heartbeat; a job of a crashed process is taken over after it',
  ),
  GITHUB_CLIENT_ID: optional(clientText, '(none)', 'GitHub OAuth app client id: with GITHUB_CLIENT_SECRET, offers sign-in with GitHub'),
  GITHUB_CLIENT_SECRET: optional(clientText, '(none)', 'GitHub OAuth app client secret', { secret: true }),
  GITHUB_URL: withDefault(httpUrl, 'https://github.com', 'GitHub web address (authorization and token endpoints)'),
  GITHUB_API_URL: withDefault(httpUrl, 'https://api.github.com', 'GitHub REST API address (the signed-in user)'),
  GITLAB_CLIENT_ID: optional(clientText, '(none)', 'GitLab application id: with GITLAB_CLIENT_SECRET, offers sign-in with GitLab'),
  GITLAB_CLIENT_SECRET: optional(clientText, '(none)', 'GitLab application secret', { secret: true }),
  GITLAB_URL: withDefault(httpUrl, 'https://gitlab.com', 'GitLab instance address (any self-managed instance too)'),
  TWITCH_CLIENT_ID: optional(clientText, '(none)', 'Twitch application client id: with TWITCH_CLIENT_SECRET, offers sign-in with Twitch'),
  TWITCH_CLIENT_SECRET: optional(clientText, '(none)', 'Twitch application client secret', { secret: true }),
  TWITCH_AUTH_URL: withDefault(httpUrl, 'https://id.twitch.tv', 'Twitch authentication address (authorization and token endpoints)'),
  TWITCH_API_URL: withDefault(httpUrl, 'https://api.twitch.tv', 'Twitch Helix API address (the signed-in user)'),
  DISCORD_CLIENT_ID: optional(clientText, '(none)', 'Discord application client id: with DISCORD_CLIENT_SECRET, offers sign-in with Discord'),
  DISCORD_CLIENT_SECRET: optional(clientText, '(none)', 'Discord application client secret', { secret: true }),
  DISCORD_URL: withDefault(httpUrl, 'https://discord.com', 'Discord address (authorization, token and user endpoints)'),
  ITCH_CLIENT_ID: optional(clientText, '(none)', 'itch.io OAuth application client id: offers linking an itch.io account (itch.io never signs in)'),
  ITCH_URL: withDefault(httpUrl, 'https://itch.io', 'itch.io address (authorization page)'),
  ITCH_API_URL: withDefault(httpUrl, 'https://api.itch.io', 'itch.io API address (the signed-in profile; deploy keys and their games)'),
  STEAM_SIGN_IN: withDefault(booleanText, 'false', 'true: offers sign-in with Steam (OpenID 2.0, no registration needed)'),
  STEAM_OPENID_URL: withDefault(httpUrl, 'https://steamcommunity.com/openid/login', 'Steam OpenID 2.0 endpoint; its origin serves the public profiles'),
  STEAM_WEB_API_KEY: optional(clientText, '(none)', 'Steam Web API key: profiles from GetPlayerSummaries instead of the public community profile', { secret: true }),
  STEAM_API_URL: withDefault(httpUrl, 'https://api.steampowered.com', 'Steam Web API address'),
  BUTLER_PATH: optional(z.string().min(1).max(4096), '(none: butler on PATH)', 'itch.io butler program that pushes deploys to itch.io'),
  BUTLER_IDLE_TIMEOUT: withDefault(
    z.coerce.number().positive().max(86_400),
    '600',
    'seconds a deploy waits for a word from butler (progress, log) before it stops it and fails the deploy',
  ),
  LOCAL_APP_DIR: optional(
    z.string().min(1).max(4096),
    '(dist/local-app from source; local-app beside the binary)',
    'folder of the local companion app builds offered for download (cartridge-helper-<platform>, .exe for windows-x64)',
  ),
  // TURN servers carry credentials: never echoed.
  CLOUD_PLAY_ICE_SERVERS: withDefault(
    z
      .string()
      .transform((text, context) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          context.addIssue({ code: 'custom', message: 'must be a JSON array of RTCIceServer objects' });
          return z.NEVER;
        }
      })
      .pipe(z.array(iceServerSchema.strict()).max(16))
      .refine(
        (servers) => servers.every((server) => [server.urls].flat().every((url) => /^(stun|stuns|turn|turns):\S+$/.test(url))),
        'every url must start with stun:, stuns:, turn: or turns:',
      ),
    '[]',
    'cloud play: JSON array of RTCIceServer ({urls, username?, credential?}) given to players and host agents; TURN credentials are never logged',
    { secret: true },
  ),
  CLOUD_PLAY_WIDTH: withDefault(z.coerce.number().pipe(cloudPlaySettingsSchema.shape.width), '1280', 'cloud play: width of the game display, in pixels (320..3840)'),
  CLOUD_PLAY_HEIGHT: withDefault(z.coerce.number().pipe(cloudPlaySettingsSchema.shape.height), '720', 'cloud play: height of the game display, in pixels (240..2160)'),
  CLOUD_PLAY_FPS: withDefault(z.coerce.number().pipe(cloudPlaySettingsSchema.shape.fps), '60', 'cloud play: frames per second of the stream (10..120)'),
  CLOUD_PLAY_IDLE_SECONDS: withDefault(
    z.coerce.number().pipe(cloudPlaySettingsSchema.shape.idleSeconds),
    '300',
    'cloud play: seconds without input before the host agent ends a session (at least 10)',
  ),
  CLOUD_PLAY_MAX_SECONDS: withDefault(
    z.coerce.number().pipe(cloudPlaySettingsSchema.shape.maxSeconds),
    '3600',
    'cloud play: longest a session may last, in seconds (at least 60)',
  ),
  // Fractions allowed: tests run the protocol with sub-second timings.
  CLOUD_PLAY_CONNECT_SECONDS: withDefault(
    z.coerce.number().min(0.1).max(86_400),
    '60',
    'cloud play: seconds a session may wait for a machine, then for the player to connect to its offer, then to start playing',
  ),
  CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS: withDefault(
    z.coerce.number().min(0.2).max(86_400),
    '30',
    'cloud play: a host machine silent this long is lost and its sessions end',
  ),
  CLOUD_PLAY_HEARTBEAT_SECONDS: withDefault(
    z.coerce.number().min(0.1).max(3_600),
    '20',
    "cloud play: how long a host agent's provide call is held at most (it calls again at once); below CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS",
  ),
  CLOUD_PLAY_INIT_HOLD_SECONDS: withDefault(
    z.coerce.number().min(0).max(30),
    '8',
    "cloud play: how long a player's session init is held waiting for the machine's offer before it answers timeout (0..30; 0: at once)",
  ),
};

/** The settings as one parser of the environment: each variable's value, parsed or defaulted. */
export const environmentSchema = z.object(settings);

export type SettingValues = z.infer<typeof environmentSchema>;
