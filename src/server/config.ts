import { join, resolve } from 'node:path';
import { parseFreeSpaceFloor } from './storage/free-space.ts';
import { cloudPlayConfigOf } from './config/cloud-play-config.ts';
import { ConfigError } from './config/config-error.ts';
import { localAppConfigOf } from './config/local-app-config.ts';
import { readOrCreateSecretKey } from './config/secret-key.ts';
import { secretVariables } from './config/settings-help.ts';
import { environmentSchema, type SettingValues } from './config/settings.ts';
import { signInConfigOf } from './config/sign-in-config.ts';

/**
 * The server's configuration, from the environment. Each variable is declared once in
 * config/settings.ts (name, parser, default, --help line); configOf below turns the parsed values
 * into the Config the server uses, and the Config type is what it builds.
 */
export { ConfigError } from './config/config-error.ts';
export { configVariables, formatConfigHelp, readVariableNames } from './config/settings-help.ts';
export { servingClockTimings } from './config/cloud-play-config.ts';
export { runsCompiled } from './config/local-app-config.ts';
export type { SignInConfig } from './config/sign-in-config.ts';

export type Config = ReturnType<typeof configOf>;

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
  return configOf(parsed.data);
}

function configOf(values: SettingValues) {
  const dataDir = resolve(values.DATA_DIR);
  const defaultPrivileges: string[] = values.DEFAULT_PRIVILEGES;
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
    /** The key before a rotation: sealed secrets it made still open (crypto/keyring.ts). */
    previousSecretKey: values.SECRET_KEY_PREVIOUS,
    appName: values.APP_NAME,
    socialLinks: values.SOCIAL_LINKS,
    /** Recipient of store content reports; none: the mail link leaves the recipient to the user. */
    reportEmail: values.REPORT_EMAIL,
    authRequired: values.AUTH_REQUIRED,
    registration: values.REGISTRATION,
    defaultPrivileges,
    sessionDays: values.SESSION_DAYS,
    signInLimits: { perAccount: values.SIGN_IN_LIMIT_ACCOUNT, perAddress: values.SIGN_IN_LIMIT_ADDRESS },
    /** Argon2id cost of new password hashes. */
    passwordHash: { memoryKib: values.PASSWORD_HASH_MEMORY_KIB, timeCost: values.PASSWORD_HASH_TIME_COST },
    trustProxy: values.TRUST_PROXY,
    logLevel: values.LOG_LEVEL,
    /** Instance default quotas: bytes, a count, seconds; 0 = no limit. Projects may override them. */
    quotas: {
      packageSize: values.QUOTA_PACKAGE_SIZE,
      branchVersionsCount: values.QUOTA_BRANCH_VERSIONS_COUNT,
      branchVersionsTime: Math.round(values.QUOTA_BRANCH_VERSIONS_DAYS * 86_400),
      branchVersionsNonCurrentTime: Math.round(values.QUOTA_BRANCH_VERSIONS_NON_CURRENT_DAYS * 86_400),
    },
    /** Package uploads: the part size clients are told to use and how long an upload token lives. */
    uploads: { partSize: values.UPLOAD_PART_SIZE, tokenHours: values.UPLOAD_HOURS },
    /** How long a package in no version is kept after its last touch, in milliseconds (0 = forever). */
    orphanPackages: { graceMs: Math.round(values.ORPHAN_PACKAGE_DAYS * 86_400_000) },
    /** Package chunks in storage: the size a pack blob is filled to (packages/packs/pack-writer.ts). */
    packs: { size: values.PACK_SIZE },
    /**
     * Images pasted into descriptions (domains/content-images): how many a project may hold (0 = no
     * limit) and how long one no description references is kept, in milliseconds; the image worker
     * process's images at once, libvips threads per image (0: one per core) and memory cap in bytes; how
     * long a finalize waits for its image before answering timeout.
     */
    contentImages: {
      maxPerProject: values.QUOTA_CONTENT_IMAGES,
      graceMs: Math.round(values.CONTENT_IMAGE_GRACE_HOURS * 3_600_000),
      worker: { concurrency: values.IMAGE_WORKER_CONCURRENCY, threads: values.IMAGE_WORKER_THREADS, memoryBytes: values.IMAGE_WORKER_MEMORY_MB * 1024 * 1024 },
      finalizeWaitMs: Math.round(values.IMAGE_FINALIZE_WAIT_SECONDS * 1000),
    },
    /**
     * Package downloads: how long a signed download URL works, in seconds; where generated downloads
     * (ZIPs, archives) are kept on local disk and how many bytes they may take (0: not kept), and the
     * free space they always leave on that disk (storage/free-space.ts).
     */
    downloads: {
      urlSeconds: Math.max(1, Math.round(values.DOWNLOAD_URL_MINUTES * 60)),
      cacheDir: join(dataDir, 'cache', 'downloads'),
      cacheBytes: values.DOWNLOAD_CACHE_SIZE,
      freeFloor: parseFreeSpaceFloor(values.STORAGE_FREE_FLOOR)!,
    },
    /**
     * Job worker loops in this process (0 = none: another process runs the jobs), their idle poll interval,
     * and the lease a claim holds without a heartbeat (renewed every third of it; a crashed process's job
     * is taken over once it ends).
     */
    jobs: { workers: values.JOB_WORKERS, deployWorkers: values.DEPLOY_WORKERS, pollMs: values.JOB_POLL_MS, leaseMs: values.JOB_LEASE_MS },
    /** The external sign-in providers this instance offers (spec §9); one absent is not offered. */
    signIn: signInConfigOf(values),
    /**
     * Deploying to storefronts (domains/deploys): itch.io's API (ITCH_API_URL, shared with sign-in) checks
     * keys and lists their games; butler (BUTLER_PATH, else found on PATH) pushes builds, from a folder per
     * deploy job under workDir (removed when the job ends, or by the next deploy after a crash).
     */
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
