import { accessSync, constants } from 'node:fs';
import { isAbsolute } from 'node:path';
import { AppError, refusal } from '../../errors.ts';

/**
 * Running itch.io's `butler` (https://itch.io/docs/butler/) for a deploy: `butler push DIR
 * developer/game:channel --userversion=V --json`, the key only in the environment (BUTLER_API_KEY, never
 * in argv), the API address as butler's own `--address` flag, and its `--json` lines read as they come
 * (comm/logging.go: log, progress, buildCreated, buildFailed, error, result).
 */

/** The butler program this server runs: BUTLER_PATH when it is an executable file, else `butler` on PATH. */
export function findButler(config: { butlerPath: string | undefined }): string | undefined {
  if (config.butlerPath !== undefined) {
    if (!isAbsolute(config.butlerPath) && !config.butlerPath.includes('/')) return Bun.which(config.butlerPath) ?? undefined;
    try {
      accessSync(config.butlerPath, constants.X_OK);
      return config.butlerPath;
    } catch {
      return undefined;
    }
  }
  return Bun.which('butler') ?? undefined;
}

export const butlerMissingMessage =
  "butler, itch.io's upload tool, is not installed on this server, so nothing can be deployed to itch.io: the server's administrator installs it (see the deploy documentation) or sets BUTLER_PATH.";

export function butlerMissing(): AppError {
  return refusal('not_supported', butlerMissingMessage, 'butler_missing');
}

/**
 * butler's `--address` for ITCH_API_URL, or undefined for itch.io itself. butler prefixes a host that is
 * not an IP address with `api.` (mansion/authenticate.go addApiSubdomain), so that prefix is taken off
 * here; an IP address is used as given.
 */
function butlerAddress(itchApiUrl: string): string | undefined {
  const url = new URL(itchApiUrl);
  if (url.protocol === 'https:' && url.host === 'api.itch.io') return undefined;
  if (url.hostname.startsWith('api.')) url.hostname = url.hostname.slice(4);
  return url.toString().replace(/\/+$/, '');
}

/** setpriv, when this system has it: butler then dies with the server even when the server is killed outright. */
const setpriv = (() => {
  try {
    return Bun.which('setpriv') ?? undefined;
  } catch {
    return undefined;
  }
})();

export type ButlerPush = {
  butler: string;
  dir: string;
  /** 'developer/game' */
  target: string;
  channel: string;
  userVersion: string;
  key: string;
  itchApiUrl: string;
  /** butler's own home and temp folder (it writes a config there). */
  home: string;
  idleMs: number;
  /** Aborted (the job's lease lost): butler is killed at once and the push throws the signal's reason. */
  signal?: AbortSignal;
  onProgress(progress: number): void;
  onLog(line: string): void;
};

type ButlerLine = {
  type?: string;
  level?: string;
  message?: string;
  progress?: number;
  buildId?: number;
  value?: { buildId?: number };
};

/** The argv of a push (tests assert that the key is never in it). */
function butlerPushArgs(push: Pick<ButlerPush, 'butler' | 'dir' | 'target' | 'channel' | 'userVersion' | 'itchApiUrl'>): string[] {
  const address = butlerAddress(push.itchApiUrl);
  return [
    ...(setpriv ? [setpriv, '--pdeathsig=KILL', '--'] : []),
    push.butler,
    'push',
    push.dir,
    `${push.target}:${push.channel}`,
    // The `=` forms: a version title starting with '-' stays a value.
    `--userversion=${push.userVersion}`,
    '--json',
    ...(address ? [`--address=${address}`] : []),
  ];
}

/** The first line of butler's error (a pkg/errors chain: the root cause comes first). */
function rootCause(message: string): string {
  return (message.split('\n').find((line) => line.trim() !== '') ?? message).trim();
}

async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const piece of stream as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(piece, { stream: true });
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      yield buffer.slice(0, end).replace(/\r$/, '');
      buffer = buffer.slice(end + 1);
    }
  }
  buffer += decoder.decode();
  if (buffer !== '') yield buffer;
}

/**
 * Pushes the folder; resolves with the build id butler reported (null if it said none), or throws an
 * AppError with butler's reason in words. Stopped (SIGKILL) when it says nothing for idleMs, or when
 * the signal aborts.
 */
export async function runButlerPush(push: ButlerPush): Promise<{ buildId: number | null }> {
  push.signal?.throwIfAborted();
  const redact = (text: string) => (push.key ? text.split(push.key).join('[key]') : text);
  const child = Bun.spawn(butlerPushArgs(push), {
    env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: push.home, TMPDIR: push.home, BUTLER_API_KEY: push.key },
    cwd: push.home,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let idle: ReturnType<typeof setTimeout> | undefined;
  let silent = false;
  const heard = () => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      silent = true;
      child.kill('SIGKILL');
    }, push.idleMs);
  };
  heard();
  const stop = () => child.kill('SIGKILL');
  push.signal?.addEventListener('abort', stop, { once: true });
  let buildId: number | null = null;
  let error: string | undefined;
  const stderrTail: string[] = [];
  const readStdout = async () => {
    for await (const raw of linesOf(child.stdout)) {
      heard();
      if (raw.trim() === '') continue;
      let line: ButlerLine | undefined;
      try {
        const parsed: unknown = JSON.parse(raw);
        if (parsed && typeof parsed === 'object') line = parsed as ButlerLine;
      } catch {
        /* not a JSON line: shown as it is */
      }
      if (!line) {
        push.onLog(redact(raw));
        continue;
      }
      if (line.type === 'progress' && typeof line.progress === 'number') push.onProgress(line.progress);
      else if (line.type === 'log' && typeof line.message === 'string' && line.level !== 'debug') push.onLog(redact(line.message));
      else if (line.type === 'buildCreated' && typeof line.buildId === 'number') {
        buildId = line.buildId;
        push.onLog(`Build ${line.buildId} created on channel ${push.channel}`);
      } else if (line.type === 'buildFailed' && typeof line.message === 'string') push.onLog(redact(`Build failed: ${rootCause(line.message)}`));
      else if (line.type === 'error' && typeof line.message === 'string') {
        error = redact(rootCause(line.message));
        push.onLog(`Error: ${error}`);
      } else if (line.type === 'result' && typeof line.value?.buildId === 'number') buildId = line.value.buildId;
    }
  };
  const readStderr = async () => {
    for await (const raw of linesOf(child.stderr)) {
      heard();
      if (raw.trim() === '') continue;
      stderrTail.push(redact(raw).slice(0, 500));
      if (stderrTail.length > 5) stderrTail.shift();
    }
  };
  try {
    await Promise.all([readStdout(), readStderr()]);
    const code = await child.exited;
    push.signal?.throwIfAborted();
    if (silent) throw new AppError('timeout', `butler said nothing for ${Math.round(push.idleMs / 1000)} s and was stopped`);
    if (code !== 0) {
      const reason = error ?? stderrTail.at(-1)?.replace(/^bailing out:\s*/, '') ?? `it exited with code ${code}`;
      throw new AppError('unexpected_error', `butler could not push the build: ${reason}`);
    }
    return { buildId };
  } finally {
    clearTimeout(idle);
    push.signal?.removeEventListener('abort', stop);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
