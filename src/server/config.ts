import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { cloudPlaySettingsSchema, iceServerSchema, type CloudPlaySettings, type IceServer } from '../shared/schemas/cloud-play.ts';
import { privilegeNames } from '../shared/schemas/privileges.ts';
import { parseFreeSpaceFloor, type FreeSpaceFloor } from './storage/free-space.ts';

/** Every environment variable Cartridge reads, with its default and meaning (README and --help). */
export const configVariables = [
  ['PORT', '3000', 'HTTP port of the app (0 picks a free one)'],
  ['HOST', '0.0.0.0', 'address to listen on'],
  ['DATA_DIR', './data', 'folder for the embedded database, blobs and the generated secret key'],
  ['DATABASE_URL', '(embedded PGlite in DATA_DIR/db)', 'postgres://user:pass@host:5432/db to use PostgreSQL'],
  ['STORAGE_URL', 'file:', 'blob store: file: (DATA_DIR/blobs), file:/path, or s3://bucket[/prefix]'],
  ['PUBLIC_URL', 'http://localhost:PORT', 'address users reach the app at (links, cookies, OAuth)'],
  ['PLAY_ORIGIN', 'http://127.0.0.1:PLAY_PORT', 'separate origin serving HTML5 games'],
  ['PLAY_PORT', 'PORT+1', 'port of the play origin when it is served by this process'],
  ['SECRET_KEY', '(generated into DATA_DIR/secret.key)', 'at least 32 characters; encrypts stored keys and signs URLs'],
  ['SECRET_KEY_PREVIOUS', '(none)', 'the SECRET_KEY before a rotation: what it sealed still opens (new seals and signatures use SECRET_KEY)'],
  ['APP_NAME', 'Cartridge', 'name shown in page titles and the header'],
  ['SOCIAL_LINKS', '(none)', 'footer links, comma-separated Name=https://url pairs'],
  ['REPORT_EMAIL', '(none)', 'address the store\'s "Report content" mail link is sent to'],
  ['AUTH_REQUIRED', 'false', 'true: the whole app requires sign-in'],
  ['REGISTRATION', 'open', 'open | closed (only the first user may register)'],
  ['DEFAULT_PRIVILEGES', 'create_project', 'comma-separated privileges every new user gets'],
  ['SESSION_DAYS', '30', 'lifetime of a browser session, renewed by use'],
  ['SIGN_IN_LIMIT_ACCOUNT', '10', 'failed password sign-ins allowed per account in 15 minutes'],
  ['SIGN_IN_LIMIT_ADDRESS', '50', 'failed password sign-ins allowed per client address in 15 minutes'],
  ['PASSWORD_HASH_MEMORY_KIB', '65536', 'memory of each Argon2id password hash, in KiB (64 MiB; existing hashes keep their own cost)'],
  ['PASSWORD_HASH_TIME_COST', '2', 'passes of each Argon2id password hash'],
  ['TRUST_PROXY', 'false', 'true behind a load balancer: take the client address from X-Forwarded-For'],
  ['LOG_LEVEL', 'info', 'silent | error | info | debug'],
  ['QUOTA_PACKAGE_SIZE', '10737418240', 'default largest package of a project, in bytes (0 = no limit)'],
  ['QUOTA_BRANCH_VERSIONS_COUNT', '20', 'default most versions a branch keeps (0 = no limit)'],
  ['QUOTA_BRANCH_VERSIONS_DAYS', '0', 'default days a branch keeps a version after its latest publish there; its current one always stays (0 = indefinitely)'],
  ['QUOTA_BRANCH_VERSIONS_NON_CURRENT_DAYS', '90', 'default days a branch keeps a version after it stopped being current there (0 = indefinitely)'],
  ['QUOTA_CONTENT_IMAGES', '2000', 'most images pasted into descriptions a project may hold, uploads under way included (0 = no limit)'],
  ['CONTENT_IMAGE_GRACE_HOURS', '24', 'hours an image no description references is kept before it is collected (an upload never finished goes an hour after its token expired)'],
  ['IMAGE_WORKER_CONCURRENCY', '1', 'images decoded and encoded at once, in the image worker process (one per user at a time, users served in turn)'],
  ['IMAGE_WORKER_THREADS', '0', 'libvips threads per image in the image worker (0 = one per core; the worker runs at a lower priority than the server)'],
  ['IMAGE_WORKER_MEMORY_MB', '2048', 'memory cap of the image worker process, in MiB (a 20 MP photo peaks near 0.9 GB, a 40 MP one near 1.8 GB): past it the image being processed is refused and the worker restarted'],
  ['IMAGE_FINALIZE_WAIT_SECONDS', '90', 'longest an image finalize waits for its turn and processing before answering 503 timeout (the image stays queued: finalize again to keep waiting)'],
  ['ORPHAN_PACKAGE_DAYS', '7', 'days a package in no version is kept after it was last touched (uploaded, renamed, retagged, or left a deleted version) before it is collected (0 = never)'],
  ['UPLOAD_PART_SIZE', '8388608', 'bytes per package upload part the server asks clients to send (1024..1073741824)'],
  ['PACK_SIZE', '33554432', 'bytes of package chunks stored together in one pack blob (65536..1073741824; fewer, larger blobs: fewer files to sync and S3 requests)'],
  ['UPLOAD_HOURS', '24', 'hours a package upload token stays valid (parts and finalize)'],
  ['DOWNLOAD_URL_MINUTES', '60', 'minutes a signed package download URL works (a download already started finishes)'],
  ['DOWNLOAD_CACHE_SIZE', '10737418240', 'bytes of local disk (DATA_DIR/cache/downloads) for ready-made ZIPs and archives, least recently used dropped first (0 = none: downloads are generated for every request)'],
  ['STORAGE_FREE_FLOOR', '1073741824', 'free space the download cache always leaves on its disk for blobs and the database, in bytes or as a share of the disk (5%): the cache writes nothing past it and gives its files up as soon as free space falls under it'],
  ['JOB_WORKERS', '1', 'jobs this process runs at once (retention, ...); 0 = this process runs no jobs'],
  ['DEPLOY_WORKERS', '2', 'deploys to storefronts this process runs at once, besides JOB_WORKERS (with JOB_WORKERS=0, none)'],
  ['JOB_POLL_MS', '1000', 'how often an idle job worker looks for due jobs, in milliseconds'],
  ['JOB_LEASE_MS', '60000', 'how long a running job stays with its process without a heartbeat; a job of a crashed process is taken over after it'],
  ['GITHUB_CLIENT_ID', '(none)', 'GitHub OAuth app client id: with GITHUB_CLIENT_SECRET, offers sign-in with GitHub'],
  ['GITHUB_CLIENT_SECRET', '(none)', 'GitHub OAuth app client secret'],
  ['GITHUB_URL', 'https://github.com', 'GitHub web address (authorization and token endpoints)'],
  ['GITHUB_API_URL', 'https://api.github.com', 'GitHub REST API address (the signed-in user)'],
  ['GITLAB_CLIENT_ID', '(none)', 'GitLab application id: with GITLAB_CLIENT_SECRET, offers sign-in with GitLab'],
  ['GITLAB_CLIENT_SECRET', '(none)', 'GitLab application secret'],
  ['GITLAB_URL', 'https://gitlab.com', 'GitLab instance address (any self-managed instance too)'],
  ['TWITCH_CLIENT_ID', '(none)', 'Twitch application client id: with TWITCH_CLIENT_SECRET, offers sign-in with Twitch'],
  ['TWITCH_CLIENT_SECRET', '(none)', 'Twitch application client secret'],
  ['TWITCH_AUTH_URL', 'https://id.twitch.tv', 'Twitch authentication address (authorization and token endpoints)'],
  ['TWITCH_API_URL', 'https://api.twitch.tv', 'Twitch Helix API address (the signed-in user)'],
  ['DISCORD_CLIENT_ID', '(none)', 'Discord application client id: with DISCORD_CLIENT_SECRET, offers sign-in with Discord'],
  ['DISCORD_CLIENT_SECRET', '(none)', 'Discord application client secret'],
  ['DISCORD_URL', 'https://discord.com', 'Discord address (authorization, token and user endpoints)'],
  ['ITCH_CLIENT_ID', '(none)', 'itch.io OAuth application client id: offers linking an itch.io account (itch.io never signs in)'],
  ['ITCH_URL', 'https://itch.io', 'itch.io address (authorization page)'],
  ['ITCH_API_URL', 'https://api.itch.io', 'itch.io API address (the signed-in profile; deploy keys and their games)'],
  ['STEAM_SIGN_IN', 'false', 'true: offers sign-in with Steam (OpenID 2.0, no registration needed)'],
  ['STEAM_OPENID_URL', 'https://steamcommunity.com/openid/login', 'Steam OpenID 2.0 endpoint; its origin serves the public profiles'],
  ['STEAM_WEB_API_KEY', '(none)', 'Steam Web API key: profiles from GetPlayerSummaries instead of the public community profile'],
  ['STEAM_API_URL', 'https://api.steampowered.com', 'Steam Web API address'],
  ['BUTLER_PATH', '(none: butler on PATH)', 'itch.io butler program that pushes deploys to itch.io'],
  ['BUTLER_IDLE_TIMEOUT', '600', 'seconds a deploy waits for a word from butler (progress, log) before it stops it and fails the deploy'],
  ['LOCAL_APP_DIR', '(dist/local-app from source; local-app beside the binary)', 'folder of the local companion app builds offered for download (cartridge-helper-<platform>, .exe for windows-x64)'],
  ['CLOUD_PLAY_ICE_SERVERS', '[]', 'cloud play: JSON array of RTCIceServer ({urls, username?, credential?}) given to players and host agents; TURN credentials are never logged'],
  ['CLOUD_PLAY_WIDTH', '1280', 'cloud play: width of the game display, in pixels (320..3840)'],
  ['CLOUD_PLAY_HEIGHT', '720', 'cloud play: height of the game display, in pixels (240..2160)'],
  ['CLOUD_PLAY_FPS', '60', 'cloud play: frames per second of the stream (10..120)'],
  ['CLOUD_PLAY_IDLE_SECONDS', '300', 'cloud play: seconds without input before the host agent ends a session (at least 10)'],
  ['CLOUD_PLAY_MAX_SECONDS', '3600', 'cloud play: longest a session may last, in seconds (at least 60)'],
  ['CLOUD_PLAY_CONNECT_SECONDS', '60', 'cloud play: seconds a session may wait for a machine, then for the player to connect to its offer, then to start playing'],
  ['CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS', '30', 'cloud play: a host machine silent this long is lost and its sessions end'],
  ['CLOUD_PLAY_HEARTBEAT_SECONDS', '20', 'cloud play: how long a host agent\'s provide call is held at most (it calls again at once); below CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS'],
  ['CLOUD_PLAY_INIT_HOLD_SECONDS', '8', 'cloud play: how long a player\'s session init is held waiting for the machine\'s offer before it answers timeout (0..30; 0: at once)'],
] as const;

/** Variables whose value is never echoed in a configuration error. */
const secretVariables = new Set([
  'SECRET_KEY_PREVIOUS',
  'GITHUB_CLIENT_SECRET',
  'GITLAB_CLIENT_SECRET',
  'TWITCH_CLIENT_SECRET',
  'DISCORD_CLIENT_SECRET',
  'STEAM_WEB_API_KEY',
  // TURN servers carry credentials.
  'CLOUD_PLAY_ICE_SERVERS',
]);

const booleanText = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const port = z.coerce.number().int().min(0).max(65535);

const urlText = (protocols: string[]) =>
  z.string().refine((value) => {
    try {
      return protocols.includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, `must be a URL starting with ${protocols.join(' or ')}`);

/** A provider address; trailing slashes dropped so paths join on. */
const httpUrl = urlText(['http:', 'https:']).transform((value) => value.replace(/\/+$/, ''));
/** OAuth client ids, secrets and API keys: printable ASCII, no spaces. */
const clientText = z.string().max(512).regex(/^[\x21-\x7E]+$/, 'must be printable ASCII without spaces');

const environmentSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: urlText(['postgres:', 'postgresql:']).optional(),
  STORAGE_URL: z
    .string()
    .regex(/^(file:.*|s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?)$/, 'must be file:, file:/path or s3://bucket[/prefix]')
    .default('file:'),
  PUBLIC_URL: urlText(['http:', 'https:']).optional(),
  PLAY_ORIGIN: urlText(['http:', 'https:']).optional(),
  PLAY_PORT: port.optional(),
  SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  SECRET_KEY_PREVIOUS: z.string().min(32, 'must be at least 32 characters').optional(),
  APP_NAME: z.string().min(1).max(64).default('Cartridge'),
  SOCIAL_LINKS: z
    .string()
    .default('')
    .transform((text) => text.split(',').map((item) => item.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^[^=]{1,40}=https?:\/\/\S+$/, 'must be Name=https://url pairs separated by commas')))
    .transform((pairs) => pairs.map((pair) => ({ name: pair.slice(0, pair.indexOf('=')).trim(), href: pair.slice(pair.indexOf('=') + 1) }))),
  REPORT_EMAIL: z.email('must be an e-mail address').max(254).optional(),
  AUTH_REQUIRED: booleanText.default(false),
  REGISTRATION: z.enum(['open', 'closed']).default('open'),
  DEFAULT_PRIVILEGES: z
    .string()
    .default('create_project')
    .transform((text) => text.split(',').map((item) => item.trim()).filter(Boolean))
    .pipe(z.array(z.enum(privilegeNames))),
  SESSION_DAYS: z.coerce.number().positive().max(3650).default(30),
  SIGN_IN_LIMIT_ACCOUNT: z.coerce.number().int().min(1).max(100_000).default(10),
  SIGN_IN_LIMIT_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(50),
  PASSWORD_HASH_MEMORY_KIB: z.coerce.number().int().min(64).max(4 * 1024 * 1024).default(65_536),
  PASSWORD_HASH_TIME_COST: z.coerce.number().int().min(1).max(100).default(2),
  TRUST_PROXY: booleanText.default(false),
  LOG_LEVEL: z.enum(['silent', 'error', 'info', 'debug']).default('info'),
  QUOTA_PACKAGE_SIZE: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(10 * 1024 ** 3),
  QUOTA_BRANCH_VERSIONS_COUNT: z.coerce.number().int().min(0).max(2_147_483_647).default(20),
  QUOTA_BRANCH_VERSIONS_DAYS: z.coerce.number().min(0).max(36_500).default(0),
  QUOTA_BRANCH_VERSIONS_NON_CURRENT_DAYS: z.coerce.number().min(0).max(36_500).default(90),
  QUOTA_CONTENT_IMAGES: z.coerce.number().int().min(0).max(2_147_483_647).default(2000),
  CONTENT_IMAGE_GRACE_HOURS: z.coerce.number().min(0).max(24 * 3650).default(24),
  IMAGE_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  IMAGE_WORKER_THREADS: z.coerce.number().int().min(0).max(256).default(0),
  IMAGE_WORKER_MEMORY_MB: z.coerce.number().int().min(64).max(1024 * 1024).default(2048),
  // Below the server's idle timeout (120 s, serve.ts), which would cut the request without a reply.
  IMAGE_FINALIZE_WAIT_SECONDS: z.coerce.number().positive().max(110).default(90),
  ORPHAN_PACKAGE_DAYS: z.coerce.number().min(0).max(36_500).default(7),
  UPLOAD_PART_SIZE: z.coerce.number().int().min(1024).max(1024 ** 3).default(8 * 1024 ** 2),
  PACK_SIZE: z.coerce.number().int().min(64 * 1024).max(1024 ** 3).default(32 * 1024 ** 2),
  UPLOAD_HOURS: z.coerce.number().positive().max(24 * 365).default(24),
  DOWNLOAD_URL_MINUTES: z.coerce.number().positive().max(60 * 24 * 365).default(60),
  DOWNLOAD_CACHE_SIZE: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(10 * 1024 ** 3),
  STORAGE_FREE_FLOOR: z
    .string()
    .default('1073741824')
    .refine((value) => parseFreeSpaceFloor(value) !== undefined, 'bytes (1073741824) or a share of the disk (5%)'),
  JOB_WORKERS: z.coerce.number().int().min(0).max(64).default(1),
  DEPLOY_WORKERS: z.coerce.number().int().min(0).max(64).default(2),
  JOB_POLL_MS: z.coerce.number().int().min(10).max(3_600_000).default(1000),
  JOB_LEASE_MS: z.coerce.number().int().min(300).max(86_400_000).default(60_000),
  GITHUB_CLIENT_ID: clientText.optional(),
  GITHUB_CLIENT_SECRET: clientText.optional(),
  GITHUB_URL: httpUrl.default('https://github.com'),
  GITHUB_API_URL: httpUrl.default('https://api.github.com'),
  GITLAB_CLIENT_ID: clientText.optional(),
  GITLAB_CLIENT_SECRET: clientText.optional(),
  GITLAB_URL: httpUrl.default('https://gitlab.com'),
  TWITCH_CLIENT_ID: clientText.optional(),
  TWITCH_CLIENT_SECRET: clientText.optional(),
  TWITCH_AUTH_URL: httpUrl.default('https://id.twitch.tv'),
  TWITCH_API_URL: httpUrl.default('https://api.twitch.tv'),
  DISCORD_CLIENT_ID: clientText.optional(),
  DISCORD_CLIENT_SECRET: clientText.optional(),
  DISCORD_URL: httpUrl.default('https://discord.com'),
  ITCH_CLIENT_ID: clientText.optional(),
  ITCH_URL: httpUrl.default('https://itch.io'),
  ITCH_API_URL: httpUrl.default('https://api.itch.io'),
  STEAM_SIGN_IN: booleanText.default(false),
  STEAM_OPENID_URL: httpUrl.default('https://steamcommunity.com/openid/login'),
  STEAM_WEB_API_KEY: clientText.optional(),
  STEAM_API_URL: httpUrl.default('https://api.steampowered.com'),
  BUTLER_PATH: z.string().min(1).max(4096).optional(),
  BUTLER_IDLE_TIMEOUT: z.coerce.number().positive().max(86_400).default(600),
  LOCAL_APP_DIR: z.string().min(1).max(4096).optional(),
  CLOUD_PLAY_ICE_SERVERS: z
    .string()
    .default('[]')
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
  CLOUD_PLAY_WIDTH: z.coerce.number().pipe(cloudPlaySettingsSchema.shape.width).default(1280),
  CLOUD_PLAY_HEIGHT: z.coerce.number().pipe(cloudPlaySettingsSchema.shape.height).default(720),
  CLOUD_PLAY_FPS: z.coerce.number().pipe(cloudPlaySettingsSchema.shape.fps).default(60),
  CLOUD_PLAY_IDLE_SECONDS: z.coerce.number().pipe(cloudPlaySettingsSchema.shape.idleSeconds).default(300),
  CLOUD_PLAY_MAX_SECONDS: z.coerce.number().pipe(cloudPlaySettingsSchema.shape.maxSeconds).default(3600),
  // Fractions allowed: tests run the protocol with sub-second timings.
  CLOUD_PLAY_CONNECT_SECONDS: z.coerce.number().min(0.1).max(86_400).default(60),
  CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS: z.coerce.number().min(0.2).max(86_400).default(30),
  CLOUD_PLAY_HEARTBEAT_SECONDS: z.coerce.number().min(0.1).max(3_600).default(20),
  CLOUD_PLAY_INIT_HOLD_SECONDS: z.coerce.number().min(0).max(30).default(8),
});

export type Config = {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  storageUrl: string;
  publicUrl: string | undefined;
  playOrigin: string | undefined;
  playPort: number | undefined;
  secretKey: string;
  /** The key before a rotation: sealed secrets it made still open (crypto/keyring.ts). */
  previousSecretKey: string | undefined;
  appName: string;
  socialLinks: { name: string; href: string }[];
  /** Recipient of store content reports; none: the mail link leaves the recipient to the user. */
  reportEmail: string | undefined;
  authRequired: boolean;
  registration: 'open' | 'closed';
  defaultPrivileges: string[];
  sessionDays: number;
  signInLimits: { perAccount: number; perAddress: number };
  /** Argon2id cost of new password hashes. */
  passwordHash: { memoryKib: number; timeCost: number };
  trustProxy: boolean;
  logLevel: 'silent' | 'error' | 'info' | 'debug';
  /** Instance default quotas: bytes, a count, seconds; 0 = no limit. Projects may override them. */
  quotas: { packageSize: number; branchVersionsCount: number; branchVersionsTime: number; branchVersionsNonCurrentTime: number };
  /** Package uploads: the part size clients are told to use and how long an upload token lives. */
  uploads: { partSize: number; tokenHours: number };
  /** How long a package in no version is kept after its last touch, in milliseconds (0 = forever). */
  orphanPackages: { graceMs: number };
  /** Package chunks in storage: the size a pack blob is filled to (packages/packs/pack-writer.ts). */
  packs: { size: number };
  /**
   * Images pasted into descriptions (domains/content-images): how many a project may hold (0 = no
   * limit) and how long one no description references is kept, in milliseconds; the image worker
   * process's images at once, libvips threads per image (0: one per core) and memory cap in bytes; how
   * long a finalize waits for its image before answering timeout.
   */
  contentImages: { maxPerProject: number; graceMs: number; worker: { concurrency: number; threads: number; memoryBytes: number }; finalizeWaitMs: number };
  /**
   * Package downloads: how long a signed download URL works, in seconds; where generated downloads
   * (ZIPs, archives) are kept on local disk and how many bytes they may take (0: not kept), and the
   * free space they always leave on that disk (storage/free-space.ts).
   */
  downloads: { urlSeconds: number; cacheDir: string; cacheBytes: number; freeFloor: FreeSpaceFloor };
  /**
   * Job worker loops in this process (0 = none: another process runs the jobs), their idle poll interval,
   * and the lease a claim holds without a heartbeat (renewed every third of it; a crashed process's job
   * is taken over once it ends).
   */
  jobs: { workers: number; deployWorkers: number; pollMs: number; leaseMs: number };
  /** The external sign-in providers this instance offers (spec §9); one absent is not offered. */
  signIn: SignInConfig;
  /**
   * Deploying to storefronts (domains/deploys): itch.io's API (ITCH_API_URL, shared with sign-in) checks
   * keys and lists their games; butler (BUTLER_PATH, else found on PATH) pushes builds, from a folder per
   * deploy job under workDir (removed when the job ends, or by the next deploy after a crash).
   */
  deploys: { itchApiUrl: string; butlerPath: string | undefined; butlerIdleMs: number; workDir: string };
  /**
   * The local companion app's builds offered for download (domains/local-app): the folder holding
   * `cartridge-helper-<platform>` files, and whether the server may build the one of its own platform
   * on the first request when it is missing (from source with the default folder only).
   */
  localApp: { dir: string; buildOnDemand: boolean };
  /**
   * Cloud play (domains/cloud-play): the ICE servers players and agents use (TURN credentials: never
   * logged), the stream settings, and the protocol's timings in milliseconds: how long a session may
   * wait for a machine, for the player's connect and for playing to start (connectMs); when a silent
   * machine is lost (machineTimeoutMs); how long a provide call is held (heartbeatMs); how long a
   * player's init is held for the offer (initHoldMs). Derived from these: how often every serving
   * process records that it is alive (servingBeatMs) and the longest pause of those records that is
   * not yet a gap in serving (servingGapMs: domains/cloud-play/serving-clock.ts).
   */
  cloudPlay: {
    iceServers: IceServer[];
    settings: CloudPlaySettings;
    connectMs: number;
    machineTimeoutMs: number;
    heartbeatMs: number;
    initHoldMs: number;
    servingBeatMs: number;
    servingGapMs: number;
  };
};

/** Provider addresses have no trailing slash. Client secrets and keys are never logged or replied. */
export type SignInConfig = {
  github?: { clientId: string; clientSecret: string; url: string; apiUrl: string };
  gitlab?: { clientId: string; clientSecret: string; url: string };
  twitch?: { clientId: string; clientSecret: string; authUrl: string; apiUrl: string };
  discord?: { clientId: string; clientSecret: string; url: string };
  itch?: { clientId: string; url: string; apiUrl: string };
  steam?: { openidUrl: string; webApiKey: string | undefined; apiUrl: string };
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The names of every variable loadConfig reads (the README's settings table must list each: tests/unit/readme.test.ts). */
export const readVariableNames: readonly string[] = Object.keys(environmentSchema.shape);

/** Parses the environment; throws ConfigError with one line naming the variable at fault. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty value means unset, except where empty is a meaningful choice (no default privileges).
  const present = Object.fromEntries(
    Object.entries(env).filter(([name, value]) => value !== undefined && (value !== '' || name === 'DEFAULT_PRIVILEGES')),
  );
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    // The value is echoed to help spot a typo, except a secret's (SECRET_KEY's predates this rule).
    const shown = secretVariables.has(name) ? '' : `=${JSON.stringify(present[name] ?? '')}`;
    throw new ConfigError(`Invalid ${name}${shown}: ${issue.message}`);
  }
  const values = parsed.data;
  const dataDir = resolve(values.DATA_DIR);
  return {
    port: values.PORT,
    host: values.HOST,
    dataDir,
    databaseUrl: values.DATABASE_URL,
    storageUrl: values.STORAGE_URL,
    publicUrl: values.PUBLIC_URL?.replace(/\/+$/, ''),
    playOrigin: values.PLAY_ORIGIN?.replace(/\/+$/, ''),
    playPort: values.PLAY_PORT,
    secretKey: values.SECRET_KEY ?? readOrCreateSecretKey(dataDir),
    previousSecretKey: values.SECRET_KEY_PREVIOUS,
    appName: values.APP_NAME,
    socialLinks: values.SOCIAL_LINKS,
    reportEmail: values.REPORT_EMAIL,
    authRequired: values.AUTH_REQUIRED,
    registration: values.REGISTRATION,
    defaultPrivileges: values.DEFAULT_PRIVILEGES,
    sessionDays: values.SESSION_DAYS,
    signInLimits: { perAccount: values.SIGN_IN_LIMIT_ACCOUNT, perAddress: values.SIGN_IN_LIMIT_ADDRESS },
    passwordHash: { memoryKib: values.PASSWORD_HASH_MEMORY_KIB, timeCost: values.PASSWORD_HASH_TIME_COST },
    trustProxy: values.TRUST_PROXY,
    logLevel: values.LOG_LEVEL,
    quotas: {
      packageSize: values.QUOTA_PACKAGE_SIZE,
      branchVersionsCount: values.QUOTA_BRANCH_VERSIONS_COUNT,
      branchVersionsTime: Math.round(values.QUOTA_BRANCH_VERSIONS_DAYS * 86_400),
      branchVersionsNonCurrentTime: Math.round(values.QUOTA_BRANCH_VERSIONS_NON_CURRENT_DAYS * 86_400),
    },
    uploads: { partSize: values.UPLOAD_PART_SIZE, tokenHours: values.UPLOAD_HOURS },
    orphanPackages: { graceMs: Math.round(values.ORPHAN_PACKAGE_DAYS * 86_400_000) },
    packs: { size: values.PACK_SIZE },
    contentImages: {
      maxPerProject: values.QUOTA_CONTENT_IMAGES,
      graceMs: Math.round(values.CONTENT_IMAGE_GRACE_HOURS * 3_600_000),
      worker: { concurrency: values.IMAGE_WORKER_CONCURRENCY, threads: values.IMAGE_WORKER_THREADS, memoryBytes: values.IMAGE_WORKER_MEMORY_MB * 1024 * 1024 },
      finalizeWaitMs: Math.round(values.IMAGE_FINALIZE_WAIT_SECONDS * 1000),
    },
    downloads: {
      urlSeconds: Math.max(1, Math.round(values.DOWNLOAD_URL_MINUTES * 60)),
      cacheDir: join(dataDir, 'cache', 'downloads'),
      cacheBytes: values.DOWNLOAD_CACHE_SIZE,
      freeFloor: parseFreeSpaceFloor(values.STORAGE_FREE_FLOOR)!,
    },
    jobs: { workers: values.JOB_WORKERS, deployWorkers: values.DEPLOY_WORKERS, pollMs: values.JOB_POLL_MS, leaseMs: values.JOB_LEASE_MS },
    signIn: signInConfigOf(values),
    deploys: {
      itchApiUrl: values.ITCH_API_URL,
      butlerPath: values.BUTLER_PATH,
      butlerIdleMs: Math.round(values.BUTLER_IDLE_TIMEOUT * 1000),
      workDir: join(dataDir, 'tmp', 'deploys'),
    },
    localApp: localAppConfigOf(values.LOCAL_APP_DIR),
    cloudPlay: cloudPlayConfigOf(values),
  };
}

/**
 * True inside the executable of build-binary.ts: Bun runs its modules from an embedded file system
 * (/$bunfs/root on Unix, B:\~BUN\root on Windows).
 */
export function runsCompiled(moduleDir = import.meta.dir): boolean {
  return moduleDir.startsWith('/$bunfs') || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(moduleDir);
}

/**
 * LOCAL_APP_DIR, else the local-app folder beside the compiled executable (build-binary.ts builds the
 * helper there), else dist/local-app of the source tree (npm run build:helper). Only the last may be
 * filled on demand (domains/local-app): an explicit folder belongs to the operator, and the binary has
 * no source to build from.
 */
function localAppConfigOf(fromEnv: string | undefined): Config['localApp'] {
  if (fromEnv) return { dir: resolve(fromEnv), buildOnDemand: false };
  if (runsCompiled()) return { dir: join(dirname(process.execPath), 'local-app'), buildOnDemand: false };
  // `bun test` never compiles on demand (test servers share the source tree's folder).
  return { dir: resolve(import.meta.dir, '..', '..', 'dist', 'local-app'), buildOnDemand: process.env.NODE_ENV !== 'test' };
}

function cloudPlayConfigOf(values: z.infer<typeof environmentSchema>): Config['cloudPlay'] {
  const heartbeatMs = Math.round(values.CLOUD_PLAY_HEARTBEAT_SECONDS * 1000);
  const machineTimeoutMs = Math.round(values.CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS * 1000);
  // An agent calls again within a heartbeat: a timeout no longer than that would lose live machines.
  if (heartbeatMs >= machineTimeoutMs) {
    throw new ConfigError(
      `Invalid CLOUD_PLAY_HEARTBEAT_SECONDS=${JSON.stringify(String(values.CLOUD_PLAY_HEARTBEAT_SECONDS))}: must be below CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS (${values.CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS})`,
    );
  }
  return {
    iceServers: values.CLOUD_PLAY_ICE_SERVERS,
    settings: {
      width: values.CLOUD_PLAY_WIDTH,
      height: values.CLOUD_PLAY_HEIGHT,
      fps: values.CLOUD_PLAY_FPS,
      idleSeconds: values.CLOUD_PLAY_IDLE_SECONDS,
      maxSeconds: values.CLOUD_PLAY_MAX_SECONDS,
    },
    connectMs: Math.round(values.CLOUD_PLAY_CONNECT_SECONDS * 1000),
    machineTimeoutMs,
    heartbeatMs,
    initHoldMs: Math.round(values.CLOUD_PLAY_INIT_HOLD_SECONDS * 1000),
    ...servingClockTimings(machineTimeoutMs, heartbeatMs),
  };
}

/**
 * A pause of the serving processes' records shorter than servingGapMs is counted as serving time, so
 * it must fit, with a held provide call (heartbeat) and the agent's retry wait (at most 2.4 s), in the
 * machine timeout: a third of what the timeout leaves beyond the heartbeat (default 30 - 20 s: 3.3 s),
 * at least 1 s, at most 10 s. The processes record four times per gap.
 */
export function servingClockTimings(machineTimeoutMs: number, heartbeatMs: number): { servingBeatMs: number; servingGapMs: number } {
  const servingGapMs = Math.min(10_000, Math.max(1000, Math.round((machineTimeoutMs - heartbeatMs) / 3)));
  return { servingBeatMs: Math.max(250, Math.round(servingGapMs / 4)), servingGapMs };
}

/** A client id without its secret (or the reverse) is a mistake worth stopping for, not a provider left out. */
function clientPair(prefix: 'GITHUB' | 'GITLAB' | 'TWITCH' | 'DISCORD', values: z.infer<typeof environmentSchema>): { clientId: string; clientSecret: string } | undefined {
  const clientId = values[`${prefix}_CLIENT_ID`];
  const clientSecret = values[`${prefix}_CLIENT_SECRET`];
  if (!clientId && !clientSecret) return undefined;
  if (!clientId) throw new ConfigError(`Invalid ${prefix}_CLIENT_ID: must be set with ${prefix}_CLIENT_SECRET`);
  if (!clientSecret) throw new ConfigError(`Invalid ${prefix}_CLIENT_SECRET: must be set with ${prefix}_CLIENT_ID`);
  return { clientId, clientSecret };
}

function signInConfigOf(values: z.infer<typeof environmentSchema>): SignInConfig {
  const github = clientPair('GITHUB', values);
  const gitlab = clientPair('GITLAB', values);
  const twitch = clientPair('TWITCH', values);
  const discord = clientPair('DISCORD', values);
  return {
    ...(github && { github: { ...github, url: values.GITHUB_URL, apiUrl: values.GITHUB_API_URL } }),
    ...(gitlab && { gitlab: { ...gitlab, url: values.GITLAB_URL } }),
    ...(twitch && { twitch: { ...twitch, authUrl: values.TWITCH_AUTH_URL, apiUrl: values.TWITCH_API_URL } }),
    ...(discord && { discord: { ...discord, url: values.DISCORD_URL } }),
    ...(values.ITCH_CLIENT_ID && { itch: { clientId: values.ITCH_CLIENT_ID, url: values.ITCH_URL, apiUrl: values.ITCH_API_URL } }),
    ...(values.STEAM_SIGN_IN && { steam: { openidUrl: values.STEAM_OPENID_URL, webApiKey: values.STEAM_WEB_API_KEY, apiUrl: values.STEAM_API_URL } }),
  };
}

/** The key is generated once and kept in DATA_DIR so restarts can still decrypt what it sealed. */
function readOrCreateSecretKey(dataDir: string): string {
  const path = join(dataDir, 'secret.key');
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64url');
  writeFileSync(path, key + '\n', { mode: 0o600, flag: 'wx' });
  return key;
}

/** The environment variables part of `cartridge --help` (commands/help.ts). */
export function formatConfigHelp(): string {
  const width = Math.max(...configVariables.map(([name]) => name.length));
  const lines = configVariables.map(([name, fallback, meaning]) => `  ${name.padEnd(width)}  ${meaning} (default: ${fallback})`);
  return `Environment variables:\n${lines.join('\n')}\n`;
}
