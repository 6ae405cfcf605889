import { closeSync, openSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Subprocess } from 'bun';

/** The server's entry point: `bun src/server/main.ts`, as an operator runs it from source. */
export const mainScript = resolve(import.meta.dir, '../../src/server/main.ts');

/** Only what a server process needs from this one: the caller decides the configuration. */
export function inheritedEnv(): Record<string, string> {
  return Object.fromEntries(['PATH', 'HOME', 'TMPDIR', 'LANG'].flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]!]])));
}

export type FetchInit = RequestInit & { token?: string; json?: unknown; cookie?: string };

/** fetch against `base`: a relative path is resolved under it; a token, a cookie and a JSON body are set up. */
export function fetchAt(base: string, path: string, init: FetchInit = {}): Promise<Response> {
  const { token, json, cookie, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token) headers.set('authorization', `Bearer ${token}`);
  if (cookie) headers.set('cookie', cookie);
  if (json !== undefined) headers.set('content-type', 'application/json');
  return fetch(new URL(path, base), { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
}

/**
 * One server process (`bun src/server/main.ts`) on a given URL, data folder and environment, its output
 * appended to `logPath`. It can be started again after it ended (same ports, same data).
 */
export type ServerProcess = {
  /** True while the current process runs. */
  readonly running: boolean;
  readonly pid: number | undefined;
  /** Spawns it and waits until /health answers 200; throws with the log's end if it exits or the deadline passes (killing it). */
  start(): Promise<void>;
  /** kill -9 (no shutdown hook runs), and wait until it is gone. */
  kill(): Promise<void>;
  /** SIGTERM (a clean stop), SIGKILL after `graceMs`; true when it had to be killed. */
  stop(graceMs?: number): Promise<boolean>;
  readLog(): string;
};

export function serverProcess(options: { name: string; url: string; dataDir: string; env: Record<string, string>; logPath: string; startTimeoutMs?: number }): ServerProcess {
  const { name, url, dataDir, env, logPath } = options;
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  let child: Subprocess | undefined;
  let exited = true;

  const readLog = () => {
    try {
      return readFileSync(logPath, 'utf8');
    } catch {
      return '';
    }
  };
  const tail = () => readLog().slice(-4000);

  return {
    get running() {
      return !exited;
    },
    get pid() {
      return exited ? undefined : child?.pid;
    },
    readLog,
    async start() {
      const logFd = openSync(logPath, 'a');
      const proc = Bun.spawn([process.execPath, mainScript], { cwd: dataDir, env, stdin: 'ignore', stdout: logFd, stderr: logFd });
      closeSync(logFd);
      child = proc;
      exited = false;
      void proc.exited.then(() => {
        if (child === proc) exited = true;
      });
      const deadline = Date.now() + startTimeoutMs;
      for (;;) {
        if (exited) throw new Error(`server ${name} exited with ${proc.exitCode} while starting:\n${tail()}`);
        const status = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) }).then(
          (response) => response.status,
          () => 0, // not listening yet
        );
        if (status === 200) return;
        if (Date.now() > deadline) {
          proc.kill('SIGKILL');
          await proc.exited;
          throw new Error(`server ${name} did not answer /health within ${startTimeoutMs} ms:\n${tail()}`);
        }
        await Bun.sleep(50);
      }
    },
    async kill() {
      if (!child || exited) return;
      child.kill('SIGKILL');
      await child.exited;
      exited = true;
    },
    async stop(graceMs = 10_000) {
      if (!child || exited) return false;
      const proc = child;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await proc.exited;
      clearTimeout(timer);
      exited = true;
      return proc.signalCode === 'SIGKILL';
    },
  };
}

/** Whether a process of this pid still exists (a stopped one does). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends a signal (SIGSTOP, SIGCONT, SIGKILL) to a process that may be gone already. */
export function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    /* gone */
  }
}
