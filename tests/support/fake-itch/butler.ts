import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, lstatSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

/**
 * A fake `butler` (itch.io's upload tool) for tests: `butler push DIR TARGET:CHANNEL --userversion V --json`
 * speaking butler's own `--json` line protocol, without wharf patches or uploads. Run it through the
 * executable wrapper beside this file (`butler`) or one made by installFakeButler (index.ts).
 *
 * The protocol, from github.com/itchio/butler (snapshot 0c08a3c):
 * - comm/logging.go `send`: one JSON object per stdout line, a Go map marshalled (so members in key
 *   order) with `type` and `time` (Unix seconds) added:
 *     {"level":"info","message":"…","time":T,"type":"log"}            (Logl; levels info, warning, debug)
 *     {"message":"…","time":T,"type":"error"}                           (Die: then "bailing out: …" on
 *                                                                         stderr and exit code 1)
 *     {"time":T,"type":"result","value":{…}}                            (Result)
 * - comm/progress.go ProgressWith: {"bps":B,"eta":S,"progress":0..1,"time":T,"type":"progress", …extras};
 *   cmd/push/push.go adds the extras readBytes, totalBytes, uploadedBytes, patchBytes.
 * - cmd/push/push.go: after the build is created {"buildId":N,"channel":"…","time":T,"type":"buildCreated"};
 *   on failure after that, the build is reported (POST /wharf/builds/N/failures) and
 *   {"buildId":N,"channel":"…","message":"…","time":T,"type":"buildFailed"} precedes the error;
 *   the end is pushResult: {"type":"result","value":{"buildId":N,"channel":"…","dryRun":false,"reason":"","skipped":false}}.
 * - Errors in --json mode are written with "%+v" (mansion/context.go Must): a pkg/errors chain, so the
 *   message is several lines, the root cause first, then each wrapping message, with stack frames between.
 * - The key: mansion/authenticate.go reads BUTLER_API_KEY (environmentApiKeyVariable) and uses it without
 *   any call; the first API call (POST /wharf/builds, go-itchio CreateBuild) is what refuses a bad key:
 *   "itch.io API error (401): /wharf/builds: invalid key" (go-itchio errors.go APIError.Error) wrapped as
 *   "creating build on remote server". Without the variable and without a key file, and stdin not a
 *   terminal: the log "Please set BUTLER_API_KEY to your API key, see https://itch.io/docs/butler/login.html
 *   for more info." then the error "No credentials and stdin is not a terminal - terminating."
 *   (This fake never reads key files: a server must pass the key in the environment.)
 * - The API address: butler has no environment variable for it, only the hidden global flag
 *   `--address` (main.go, default https://api.itch.io; an IPv4 host is used as given, others get an
 *   `api.` prefix: mansion/authenticate.go addApiSubdomain). This fake takes `--address`, else
 *   FAKE_BUTLER_API_URL, and refuses to run without one (it never talks to the real itch.io).
 * - The target: go-itchio util.go ParseSpec lowercases `project:channel`; more than one colon:
 *   "parsing push target 'X': invalid spec: X, expected something of the form user/page:channel";
 *   no channel: "invalid spec: T, missing channel (examples: T:windows-32-beta, T:linux-64)".
 * - `butler -V` / `--version`: kingpin v2.2.6 (app.go Version) prints the version string to stderr and
 *   exits 0; `butler version --json` prints {"type":"result","value":{"builtAt","commit","version","versionString"}}.
 *
 * What the fake adds, for tests (environment variables, none of them butler's):
 * - FAKE_BUTLER_RECORD: a file this appends one JSON line (a FakeButlerRecord) per `push` to: the folder's
 *   files with size, mode and SHA-256, target, channel, user version, argv, a fingerprint of the key.
 * - FAKE_BUTLER_MODE: `fail` (fails mid-upload: buildFailed + error line, exit 1), `hang` (prints
 *   progress then sleeps until killed), `hold` (prints progress, records itself as held, then waits until the
 *   control file says another mode and finishes the push: a second record), `bad-key` (answers as butler does to a key the API refuses,
 *   without asking it). FAKE_BUTLER_CONTROL: a JSON file {mode?, steps?, stepMs?} read on every run (so a
 *   test can switch modes under a server that was started once); the variables win over it.
 * - FAKE_BUTLER_STEPS (default 4) progress lines, FAKE_BUTLER_STEP_MS (default 20) apart.
 */

export const FAKE_BUTLER_VERSION = 'v15.24.0';
export const FAKE_BUTLER_VERSION_STRING = `${FAKE_BUTLER_VERSION}, built on Aug 19 2026 @ 15:39:34, ref fakebutler`;

export type FakeButlerMode = 'ok' | 'fail' | 'hang' | 'hold' | 'bad-key';

export type FakeButlerFile = { path: string; size: number; mode: number; sha256: string };
export type FakeButlerRecord = {
  /** Everything after the program name, as received (tests assert the key is not in it). */
  argv: string[];
  pid: number;
  startedAt: string;
  mode: FakeButlerMode;
  /** The folder argument, resolved. */
  dir: string;
  /** The TARGET:CHANNEL argument as given, and its parts as butler reads them (lowercased). */
  spec: string;
  target: string;
  channel: string;
  userVersion: string | null;
  json: boolean;
  apiUrl: string | null;
  /** BUTLER_API_KEY was set (never the key itself), and fingerprintKey(key) of it. */
  apiKeyFromEnv: boolean;
  keyFingerprint: string | null;
  /** The folder's content, sorted by path ('/' separated, relative). Modes are the permission bits (& 0o7777). */
  files: FakeButlerFile[];
  dirs: { path: string; mode: number }[];
  symlinks: { path: string; dest: string; mode: number }[];
  totalBytes: number;
  /** How the run ended: 'hang' is written before the sleep (the kill comes later). */
  outcome: 'succeeded' | 'failed' | 'hang' | 'hold';
  /** null until the API created the build, and in records of runs that failed before. */
  buildId: number | null;
  /** The error line's message of a failed run (null otherwise). */
  error: string | null;
};

type Send = (type: string, members: Record<string, unknown>) => void;

/** Go's encoding/json sorts map keys: so does butler's output (comm.JsonMessage is a map). */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, member) =>
    member && typeof member === 'object' && !Array.isArray(member) ? Object.fromEntries(Object.entries(member).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : member,
  );
}

class Died extends Error {}

/**
 * A pkg/errors chain as "%+v" writes it (errors.Wrap(cause, message)): the cause (with its own stack
 * frames when it has some, as errors.WithStack gives it in walk.go), then the message, then the stack
 * frames of where it was wrapped. The first line is the root cause.
 */
function chain(cause: string, wrapper: string, causeFrame?: string): string {
  const frame = (name: string, file: string) => `\ngithub.com/itchio/butler/cmd/push.${name}\n\t/home/runner/work/butler/butler/cmd/push/${file}:1`;
  return `${cause}${causeFrame ? frame(causeFrame, 'walk.go') : ''}\n${wrapper}${frame('Do', 'push.go')}`;
}

function walk(root: string) {
  const files: FakeButlerFile[] = [];
  const dirs: FakeButlerRecord['dirs'] = [];
  const symlinks: FakeButlerRecord['symlinks'] = [];
  const stat = lstatSync(root);
  if (stat.isFile()) {
    const data = readFileSync(root);
    files.push({ path: basename(root), size: data.length, mode: stat.mode & 0o7777, sha256: createHash('sha256').update(data).digest('hex') });
    return { files, dirs, symlinks };
  }
  const visit = (relative: string) => {
    const entries = readdirSync(join(root, relative), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      const full = join(root, path);
      const entryStat = lstatSync(full);
      if (entryStat.isSymbolicLink()) symlinks.push({ path, dest: readlinkSync(full), mode: entryStat.mode & 0o7777 });
      else if (entryStat.isDirectory()) {
        dirs.push({ path, mode: entryStat.mode & 0o7777 });
        visit(path);
      } else if (entryStat.isFile()) {
        const data = readFileSync(full);
        files.push({ path, size: data.length, mode: entryStat.mode & 0o7777, sha256: createHash('sha256').update(data).digest('hex') });
      }
    }
  };
  visit('');
  return { files, dirs, symlinks };
}

function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(2)} ${units[unit]}`;
}

type Control = { mode?: FakeButlerMode; steps?: number; stepMs?: number };

function readControl(env: NodeJS.ProcessEnv): Required<Control> {
  let control: Control = {};
  const file = env.FAKE_BUTLER_CONTROL;
  if (file && existsSync(file)) control = JSON.parse(readFileSync(file, 'utf8') || '{}') as Control;
  const mode = (env.FAKE_BUTLER_MODE || control.mode || 'ok') as FakeButlerMode;
  if (!['ok', 'fail', 'hang', 'hold', 'bad-key'].includes(mode)) throw new Error(`fake butler: unknown FAKE_BUTLER_MODE ${mode}`);
  return {
    mode,
    steps: Number(env.FAKE_BUTLER_STEPS || control.steps || 4),
    stepMs: Number(env.FAKE_BUTLER_STEP_MS ?? control.stepMs ?? 20),
  };
}

/** Command line as kingpin reads it: flags anywhere, `--flag=value` or `--flag value`, `--no-flag` for booleans. */
function parseArgs(argv: string[]) {
  const valued = new Set(['userversion', 'userversion-file', 'identity', 'address', 'user-agent', 'dbpath', 'butlerd-profile', 'compression', 'quality', 'cpuprofile', 'throttle', 'context-timeout', 'ignore']);
  const shortValued: Record<string, string> = { i: 'identity', a: 'address', q: 'quality' };
  const shortBool: Record<string, string> = { j: 'json', v: 'verbose', V: 'version', h: 'help' };
  const flags = new Map<string, string | boolean>();
  const positional: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === '--') {
      positional.push(...argv.slice(index + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
      if (valued.has(name)) flags.set(name, inline ?? argv[++index] ?? '');
      else if (name.startsWith('no-')) flags.set(name.slice(3), false);
      else flags.set(name, inline === undefined ? true : inline !== 'false');
    } else if (arg.startsWith('-') && arg.length > 1) {
      const letter = arg[1]!;
      if (shortValued[letter]) flags.set(shortValued[letter], arg.length > 2 ? arg.slice(2) : (argv[++index] ?? ''));
      else for (const each of arg.slice(1)) flags.set(shortBool[each] ?? each, true);
    } else positional.push(arg);
  }
  return { flags, positional };
}

async function apiCall(apiUrl: string, key: string, method: 'GET' | 'POST', path: string, params: Record<string, string>) {
  const body = new URLSearchParams(params);
  const url = `${apiUrl.replace(/\/+$/, '')}${path}${method === 'GET' && body.size ? `?${body}` : ''}`;
  const response = await fetch(url, {
    method,
    // go-itchio: an API key goes bare in Authorization (itchio.go, oauth.go getAuthHeader)
    headers: { authorization: key, 'user-agent': `butler/${FAKE_BUTLER_VERSION}`, accept: 'application/vnd.itch.v2', ...(method === 'POST' && { 'content-type': 'application/x-www-form-urlencoded' }) },
    body: method === 'POST' ? body : undefined,
  });
  const payload = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  const errors = Array.isArray(payload?.errors) ? (payload.errors as unknown[]).filter((item) => typeof item === 'string') : [];
  if (errors.length > 0) throw new Error(`itch.io API error (${response.status}): ${new URL(url).pathname}: ${errors.join(', ')}`);
  if (!response.ok || !payload) throw new Error(`Server error: HTTP ${response.status} ${response.statusText} for ${new URL(url).pathname}`);
  return payload;
}

export async function runFakeButler(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { flags, positional } = parseArgs(argv);
  const jsonMode = flags.get('json') === true;
  const time = () => Math.floor(Date.now() / 1000);
  const send: Send = (type, members) => {
    if (jsonMode) {
      if (type === 'log' && members.level === 'debug' && flags.get('verbose') !== true) return;
      process.stdout.write(`${sortedJson({ ...members, type, time: time() })}\n`);
    } else if (type === 'log') process.stdout.write(`${members.level === 'info' ? '' : `${members.level}: `}${members.message}\n`);
    else if (type === 'error') process.stdout.write(`${members.message}\n`);
  };
  const log = (message: string, level = 'info') => send('log', { level, message });
  const die = (message: string): never => {
    send('error', { message });
    if (jsonMode) process.stderr.write(`bailing out: ${message}\n`);
    throw new Died(message);
  };

  if (flags.get('version') === true) {
    process.stderr.write(`${FAKE_BUTLER_VERSION_STRING}\n`);
    return 0;
  }
  const command = positional[0];
  if (flags.get('help') === true || command === undefined || command === 'help') {
    process.stderr.write('usage: butler [<flags>] <command> [<args> ...]\n\nYour happy little itch.io helper (fake for tests)\n\nCommands:\n  push <src> <target>\n  login\n  version\n');
    return command === undefined && flags.get('help') !== true ? 1 : 0;
  }

  try {
    if (command === 'version') {
      if (jsonMode) send('result', { value: { version: FAKE_BUTLER_VERSION, builtAt: '2026-08-19T22:39:34Z', commit: 'fakebutler', versionString: FAKE_BUTLER_VERSION_STRING } });
      else process.stdout.write(`${FAKE_BUTLER_VERSION_STRING}\n`);
      return 0;
    }
    if (command === 'login') {
      if (!env.BUTLER_API_KEY) {
        log('Please set BUTLER_API_KEY to your API key, see https://itch.io/docs/butler/login.html for more info.');
        die('No credentials and stdin is not a terminal - terminating.');
      }
      const apiUrl = (flags.get('address') as string | undefined) || env.FAKE_BUTLER_API_URL;
      if (!apiUrl) die('fake butler: no API address (pass --address or set FAKE_BUTLER_API_URL)');
      try {
        await apiCall(apiUrl!, env.BUTLER_API_KEY!.trim(), 'GET', '/wharf/status', {});
      } catch (error) {
        die(`${(error as Error).message}\nvalidating credentials`);
      }
      log('Your local credentials are valid!\n');
      send('result', { value: { status: 'success' } });
      return 0;
    }
    if (command !== 'push') {
      process.stderr.write(`butler: error: expected command but got "${command}", try --help\n`);
      return 1;
    }
    return await push(positional.slice(1), flags, env, { send, log, die, jsonMode, argv });
  } catch (error) {
    if (error instanceof Died) return 1;
    throw error;
  }
}

async function push(
  args: string[],
  flags: Map<string, string | boolean>,
  env: NodeJS.ProcessEnv,
  io: { send: Send; log: (message: string, level?: string) => void; die: (message: string) => never; jsonMode: boolean; argv: string[] },
): Promise<number> {
  const { send, log, die } = io;
  const [src, specArg] = args;
  if (src === undefined || specArg === undefined) {
    process.stderr.write(`butler: error: required argument '${src === undefined ? 'src' : 'target'}' not provided, try --help\n`);
    return 1;
  }
  const control = readControl(env);
  const dir = resolve(src);
  const userVersionFile = flags.get('userversion-file');
  let userVersion = (flags.get('userversion') as string | undefined) || undefined;
  if (!userVersion && typeof userVersionFile === 'string' && userVersionFile) userVersion = readFileSync(userVersionFile, 'utf8').trim() || undefined;
  const key = env.BUTLER_API_KEY?.trim() || undefined;
  const apiUrl = (flags.get('address') as string | undefined) || env.FAKE_BUTLER_API_URL || undefined;

  const record: FakeButlerRecord = {
    argv: io.argv,
    pid: process.pid,
    startedAt: new Date().toISOString(),
    mode: control.mode,
    dir,
    spec: specArg,
    target: '',
    channel: '',
    userVersion: userVersion ?? null,
    json: io.jsonMode,
    apiUrl: apiUrl ?? null,
    apiKeyFromEnv: key !== undefined,
    keyFingerprint: key === undefined ? null : createHash('sha256').update(key).digest('hex').slice(0, 12),
    files: [],
    dirs: [],
    symlinks: [],
    totalBytes: 0,
    outcome: 'failed',
    buildId: null,
    error: null,
  };
  const save = () => {
    if (env.FAKE_BUTLER_RECORD) appendFileSync(env.FAKE_BUTLER_RECORD, `${JSON.stringify(record)}\n`);
  };
  const fail = (message: string): never => {
    record.outcome = 'failed';
    record.error = message;
    save();
    return die(message);
  };

  // go-itchio ParseSpec + EnsureChannel (push.go, before authenticating)
  const lowered = specArg.toLowerCase();
  const tokens = lowered.split(':');
  if (tokens.length > 2) fail(chain(`invalid spec: ${specArg}, expected something of the form user/page:channel`, `parsing push target '${specArg}'`));
  record.target = tokens[0]!;
  record.channel = tokens[1] ?? '';
  if (!record.channel) fail(`invalid spec: ${record.target}, missing channel (examples: ${record.target}:windows-32-beta, ${record.target}:linux-64)`);

  // the walk (push.go consumes it after authenticating; its error comes first only when the key is there)
  let walked: ReturnType<typeof walk> | undefined;
  let walkError: string | undefined;
  try {
    walked = walk(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    walkError = code === 'ENOENT' ? `lstat ${dir}: no such file or directory` : (error as Error).message;
  }
  if (walked) {
    Object.assign(record, walked);
    record.totalBytes = walked.files.reduce((sum, file) => sum + file.size, 0);
  }

  if (flags.get('dry-run') === true) {
    if (walkError) fail(chain(walkError, 'walking directory to push', 'doWalk'));
    log(`∙ Dry run, listing files we would push...`);
    for (const file of record.files) log(`${file.mode.toString(8).padStart(4, '0')} ${formatBytes(file.size)} ${file.path}`);
    record.outcome = 'succeeded';
    save();
    send('result', { value: { buildId: 0, channel: record.channel, dryRun: true, skipped: false, reason: 'dry-run' } });
    return 0;
  }

  // mansion/authenticate.go AuthenticateViaOauth: BUTLER_API_KEY, else the key file (never read here)
  if (!key) {
    log('Please set BUTLER_API_KEY to your API key, see https://itch.io/docs/butler/login.html for more info.');
    fail('No credentials and stdin is not a terminal - terminating.');
  }
  if (walkError) fail(chain(walkError, 'walking directory to push', 'doWalk'));
  if (!apiUrl) fail('fake butler: no API address (pass --address or set FAKE_BUTLER_API_URL); it never talks to the real itch.io');

  // CreateBuild: where a bad key is found out
  let buildId: number;
  let parentId = 0;
  try {
    if (control.mode === 'bad-key') throw new Error('itch.io API error (401): /wharf/builds: invalid key');
    const params: Record<string, string> = { target: record.target, channel: record.channel, source: env.BUTLER_PUSH_SOURCE || `cli/${FAKE_BUTLER_VERSION}` };
    if (userVersion) params.user_version = userVersion;
    if (flags.get('hidden') === true) params.hidden = '';
    const created = (await apiCall(apiUrl!, key!, 'POST', '/wharf/builds', params)) as { build?: { id?: number; parent_build?: { id?: number } } };
    buildId = Number(created.build?.id);
    parentId = Number(created.build?.parent_build?.id ?? 0);
  } catch (error) {
    return fail(chain((error as Error).message, 'creating build on remote server'));
  }
  record.buildId = buildId;
  send('buildCreated', { buildId, channel: record.channel });
  log(parentId === 0 ? `∙ For channel \`${record.channel}\`: pushing first build` : `∙ For channel \`${record.channel}\`: last build is ${parentId}, downloading its signature`);
  log(`∙ Pushing ${formatBytes(record.totalBytes)} (${record.files.length} files, ${record.dirs.length} dirs, ${record.symlinks.length} symlinks)`);

  const total = record.totalBytes;
  const steps = Math.max(1, control.steps);
  const started = Date.now();
  for (let step = 1; step <= steps; step++) {
    if (control.stepMs > 0) await Bun.sleep(control.stepMs);
    const progress = step / steps;
    const uploaded = Math.round(total * progress);
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    const bps = uploaded / seconds;
    send('progress', { progress, eta: bps > 1 ? (total - uploaded) / bps : 0, bps, readBytes: uploaded, totalBytes: total, uploadedBytes: uploaded, patchBytes: uploaded });
    if (control.mode === 'hang' && step === 1) {
      record.outcome = 'hang';
      save();
      // sleeps until killed (a timer keeps the process alive: a bare pending promise would let it exit)
      setInterval(() => {}, 1 << 30);
      await new Promise(() => {});
    }
    if (control.mode === 'hold' && step === 1) {
      record.outcome = 'hold';
      save();
      while (readControl(env).mode === 'hold') await Bun.sleep(20);
    }
    if (control.mode === 'fail' && step === Math.ceil(steps / 2)) {
      const cause = 'fake butler: simulated upload failure (FAKE_BUTLER_MODE=fail)';
      const message = chain(cause, 'computing and writing patch');
      try {
        await apiCall(apiUrl!, key!, 'POST', `/wharf/builds/${buildId}/failures`, { message, fatal: '' });
        send('buildFailed', { buildId, channel: record.channel, message });
      } catch (error) {
        log(`Could not mark build ${buildId} as failed: ${(error as Error).message}`, 'warning');
      }
      return fail(message);
    }
  }

  log(`✓ Added ${formatBytes(total)} fresh data`);
  log(`✓ ${formatBytes(total)} patch (no savings)`);
  log('∙ Build is now processing, should be up in a bit.');
  log('');
  log(`Use the \`butler status ${specArg}\` for more information.`);
  log('');
  record.outcome = 'succeeded';
  save();
  send('result', { value: { buildId, channel: record.channel, dryRun: false, skipped: false, reason: '' } });
  return 0;
}

/** The records a fake butler appended to its FAKE_BUTLER_RECORD file, oldest first (none if it never ran). */
export function readButlerRecords(file: string): FakeButlerRecord[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as FakeButlerRecord);
}

if (import.meta.main) {
  // exitCode rather than exit(): lets the piped stdout drain before the process ends
  process.exitCode = await runFakeButler(process.argv.slice(2));
}
