/**
 * The agent's command line and environment. Pure: argv, env and a file reader come in, a checked
 * configuration (or a ConfigError naming the bad option) comes out, so tests run it without a process.
 */
export const agentName = 'cartridge-cloudhost';
export const agentVersionNumber = '0.1.0';
/** What the agent reports as agentVersion (schema: one line, 1..64 characters). */
export const agentVersion = `${agentName}/${agentVersionNumber}`;

export type VideoCodec = 'h264' | 'vp8';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type AgentConfig = {
  /** The Cartridge server's address (the API is under {server}/api). */
  server: string;
  /** The machine token (never logged). */
  token: string;
  /** Sessions at once (0..64). */
  capacity: number;
  /** Where the chunk cache and the session folders live. */
  workDir: string;
  /** First X display number the agent uses (one per session: base, base+1, ...). */
  displayBase: number;
  /**
   * When the agent runs as root, each session's game runs as uid/gid sandboxUidBase + slot (no
   * account needed); when it does not, games run as the agent's own user. null: never switch.
   */
  sandboxUidBase: number | null;
  /** Address-space limit of the game's processes in MiB (RLIMIT_AS); 0: none. */
  memoryMb: number;
  /** Processes of the game's user (RLIMIT_NPROC; per session when each session has its own uid). */
  maxProcesses: number;
  /** Largest file the game may write, MiB (RLIMIT_FSIZE). */
  maxFileMb: number;
  /** Open files per process (RLIMIT_NOFILE). */
  maxOpenFiles: number;
  /**
   * What a session's game may write (its home, /tmp) in MiB: the session folder is a tmpfs of the
   * package's size plus this (needs root to mount); 0: no quota (games write to the work dir's disk).
   */
  sessionDiskMb: number;
  /** Size of a game's /dev/shm in MiB. */
  shmMb: number;
  /** Address-space limit of each of a session's servers and encoders (Xvfb, PulseAudio, ffmpeg), MiB. */
  serviceMemoryMb: number;
  codec: VideoCodec;
  videoKbps: number;
  audioKbps: number;
  /** Keyframe interval in seconds (ffmpeg cannot answer a PLI with a keyframe). */
  gopSeconds: number;
  /** The chunk cache is pruned to this many MiB after each session's package is ready (0: never). */
  cacheMaxMb: number;
  logLevel: LogLevel;
  /** Programs (absolute paths or names looked up in PATH). */
  programs: { xvfb: string; ffmpeg: string; bwrap: string; pulseaudio: string; prlimit: string; setpriv: string; nsenter: string; mount: string; umount: string };
};

export type ParsedCommand = { kind: 'run'; config: AgentConfig } | { kind: 'help' } | { kind: 'version' };

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const usage = `${agentName} ${agentVersionNumber}: the Cartridge cloud-play host agent

Usage: node cloudhost.js --server URL (--token-file FILE | CLOUDHOST_TOKEN=... | --token TOKEN)
                         [--capacity N] [--work-dir DIR] [options]

  --server URL          the Cartridge server (env CLOUDHOST_SERVER)
  --token-file FILE     a file holding the machine token (env CLOUDHOST_TOKEN_FILE); preferred
  --token TOKEN         the machine token on the command line (visible in ps: tests only)
                        env CLOUDHOST_TOKEN: the token itself (a systemd EnvironmentFile)
  --capacity N          sessions at once, 0..64 (default 1; env CLOUDHOST_CAPACITY)
  --work-dir DIR        chunk cache and session folders (default /var/lib/cartridge-cloudhost;
                        env CLOUDHOST_WORK_DIR)
  --display-base N      first X display number (default 100)
  --sandbox-uid-base N  as root, session k's game runs as uid/gid N+k and its display, sound server
                        and encoders as N+64+k (default 61000); 'none' to keep the agent's user
  --memory-mb N         address-space limit of a game, MiB (default 8192; 0: none)
  --max-processes N     processes of a game's user (default 1024)
  --max-file-mb N       largest file a game may write, MiB (default 4096)
  --max-open-files N    open files per game process (default 4096)
  --session-disk-mb N   what a game may write (home and /tmp), MiB (default 2048); past it ENOSPC.
                        Needs root (a tmpfs per session); 0: no quota
  --shm-mb N            a game's /dev/shm, MiB (default 256)
  --service-memory-mb N address-space limit of a session's Xvfb, PulseAudio and ffmpeg (default 2048)
  --codec h264|vp8      video codec (default h264)
  --video-kbps N        video bitrate (default 8000)
  --audio-kbps N        Opus bitrate (default 128)
  --gop-seconds S       keyframe interval, 0.5..5 (default 1)
  --cache-max-mb N      prune the chunk cache to this size (default 20480; 0: never)
  --log-level L         debug, info, warn, error (default info; env CLOUDHOST_LOG_LEVEL)
  --xvfb, --ffmpeg, --pulseaudio PATH   the programs run in the sandboxes (under /usr)
  --bwrap, --prlimit, --setpriv, --nsenter, --mount, --umount PATH   the programs the agent runs
  --help, --version

SIGTERM or SIGINT ends every session (reported as ended, reason 'machine_shutdown') and exits.
`;

type Env = Record<string, string | undefined>;

const valueOptions = new Set([
  'server',
  'token',
  'token-file',
  'capacity',
  'work-dir',
  'display-base',
  'sandbox-uid-base',
  'memory-mb',
  'max-processes',
  'max-file-mb',
  'max-open-files',
  'session-disk-mb',
  'shm-mb',
  'service-memory-mb',
  'codec',
  'video-kbps',
  'audio-kbps',
  'gop-seconds',
  'cache-max-mb',
  'log-level',
  'xvfb',
  'ffmpeg',
  'bwrap',
  'pulseaudio',
  'prlimit',
  'setpriv',
  'nsenter',
  'mount',
  'umount',
]);

function integer(name: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text.trim())) throw new ConfigError(`--${name}: '${text}' is not a whole number`);
  const value = Number(text.trim());
  if (value < min || value > max) throw new ConfigError(`--${name}: ${value} is outside ${min}..${max}`);
  return value;
}

function serverUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`--server: '${text}' is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('--server: only http: and https: addresses');
  if (url.username || url.password) throw new ConfigError('--server: put no credentials in the address');
  if (url.search || url.hash) throw new ConfigError('--server: the address takes no query or fragment');
  return url.toString().replace(/\/+$/, '');
}

/** Printable ASCII without spaces (the server's tokenText rule); a file's trailing newline is dropped. */
function checkToken(token: string, from: string): string {
  const trimmed = token.trim();
  if (trimmed === '') throw new ConfigError(`${from}: the token is empty`);
  if (!/^[\x21-\x7E]+$/.test(trimmed)) throw new ConfigError(`${from}: the token holds spaces or control characters`);
  return trimmed;
}

/**
 * Reads `--name value` and `--name=value` pairs, the environment for what argv does not say, and
 * the token from exactly one of --token, --token-file, CLOUDHOST_TOKEN_FILE, CLOUDHOST_TOKEN (in that order).
 */
export function parseCommandLine(argv: readonly string[], env: Env, readFile: (path: string) => string): ParsedCommand {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    if (arg === '--version') return { kind: 'version' };
    if (!arg.startsWith('--')) throw new ConfigError(`unexpected argument '${arg}'`);
    const equals = arg.indexOf('=');
    const name = arg.slice(2, equals < 0 ? undefined : equals);
    if (!valueOptions.has(name)) throw new ConfigError(`unknown option --${name}`);
    let value: string | undefined;
    if (equals >= 0) value = arg.slice(equals + 1);
    else {
      value = argv[i + 1];
      i += 1;
    }
    if (value === undefined) throw new ConfigError(`--${name} needs a value`);
    if (values.has(name)) throw new ConfigError(`--${name} is given twice`);
    values.set(name, value);
  }
  const option = (name: string, envName?: string): string | undefined => values.get(name) ?? (envName ? env[envName] || undefined : undefined);

  const serverText = option('server', 'CLOUDHOST_SERVER');
  if (!serverText) throw new ConfigError('--server is required (or CLOUDHOST_SERVER)');

  if (values.has('token') && values.has('token-file')) throw new ConfigError('give the token one way: --token or --token-file');
  let token: string;
  const tokenFile = values.get('token-file') ?? (values.has('token') ? undefined : env.CLOUDHOST_TOKEN_FILE || undefined);
  if (values.has('token')) token = checkToken(values.get('token')!, '--token');
  else if (tokenFile !== undefined) {
    let text: string;
    try {
      text = readFile(tokenFile);
    } catch (error) {
      throw new ConfigError(`--token-file: cannot read ${tokenFile} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    token = checkToken(text, '--token-file');
  } else if (env.CLOUDHOST_TOKEN) token = checkToken(env.CLOUDHOST_TOKEN, 'CLOUDHOST_TOKEN');
  else throw new ConfigError('no machine token: use --token-file FILE or CLOUDHOST_TOKEN (or --token)');

  const codec = option('codec') ?? 'h264';
  if (codec !== 'h264' && codec !== 'vp8') throw new ConfigError(`--codec: '${codec}' is not h264 or vp8`);
  const logLevel = option('log-level', 'CLOUDHOST_LOG_LEVEL') ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) throw new ConfigError(`--log-level: '${logLevel}' is not debug, info, warn or error`);
  const gopText = option('gop-seconds') ?? '1';
  const gopSeconds = Number(gopText);
  if (!/^\d+(\.\d+)?$/.test(gopText) || gopSeconds < 0.5 || gopSeconds > 5) throw new ConfigError(`--gop-seconds: '${gopText}' is not a number of seconds in 0.5..5`);
  const uidText = option('sandbox-uid-base') ?? '61000';
  const sandboxUidBase = uidText === 'none' ? null : integer('sandbox-uid-base', uidText, 1000, 4_000_000_000);
  const workDir = option('work-dir', 'CLOUDHOST_WORK_DIR') ?? '/var/lib/cartridge-cloudhost';
  if (!workDir.startsWith('/')) throw new ConfigError(`--work-dir: '${workDir}' is not an absolute path`);

  const config: AgentConfig = {
    server: serverUrl(serverText),
    token,
    capacity: integer('capacity', option('capacity', 'CLOUDHOST_CAPACITY') ?? '1', 0, 64),
    workDir: workDir.replace(/\/+$/, '') || '/',
    displayBase: integer('display-base', option('display-base') ?? '100', 1, 60_000),
    sandboxUidBase,
    memoryMb: integer('memory-mb', option('memory-mb') ?? '8192', 0, 16 * 1024 * 1024),
    maxProcesses: integer('max-processes', option('max-processes') ?? '1024', 16, 1_000_000),
    maxFileMb: integer('max-file-mb', option('max-file-mb') ?? '4096', 1, 16 * 1024 * 1024),
    maxOpenFiles: integer('max-open-files', option('max-open-files') ?? '4096', 64, 1_048_576),
    sessionDiskMb: integer('session-disk-mb', option('session-disk-mb') ?? '2048', 0, 1024 * 1024),
    shmMb: integer('shm-mb', option('shm-mb') ?? '256', 1, 64 * 1024),
    serviceMemoryMb: integer('service-memory-mb', option('service-memory-mb') ?? '2048', 256, 1024 * 1024),
    codec,
    videoKbps: integer('video-kbps', option('video-kbps') ?? '8000', 100, 100_000),
    audioKbps: integer('audio-kbps', option('audio-kbps') ?? '128', 16, 510),
    gopSeconds,
    cacheMaxMb: integer('cache-max-mb', option('cache-max-mb') ?? '20480', 0, 1 << 30),
    logLevel: logLevel as LogLevel,
    programs: {
      xvfb: option('xvfb') ?? 'Xvfb',
      ffmpeg: option('ffmpeg') ?? 'ffmpeg',
      bwrap: option('bwrap') ?? 'bwrap',
      pulseaudio: option('pulseaudio') ?? 'pulseaudio',
      prlimit: option('prlimit') ?? 'prlimit',
      setpriv: option('setpriv') ?? 'setpriv',
      nsenter: option('nsenter') ?? 'nsenter',
      mount: option('mount') ?? 'mount',
      umount: option('umount') ?? 'umount',
    },
  };
  return { kind: 'run', config };
}
