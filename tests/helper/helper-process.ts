import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Subprocess } from 'bun';
import { findFreePort } from '../support/free-port.ts';

export const helperMain = resolve(import.meta.dir, '../../src/helper/main.ts');

type HelperReply = { status: number; headers: Headers; body: any };

/**
 * The helper as a real process (`bun src/helper/main.ts --port N`) on a free port, with its own state
 * folder (CARTRIDGE_HELPER_HOME) and first workspace (CARTRIDGE_HELPER_WORKSPACE) in a temporary folder.
 */
export type HelperProcess = {
  url: string;
  port: number;
  root: string;
  home: string;
  workspace: string;
  statePath: string;
  env: Record<string, string>;
  /** POST /?method=NAME with a JSON body (a string is sent as is). */
  call(method: string, body?: unknown, init?: { origin?: string; headers?: Record<string, string> }): Promise<HelperReply>;
  /** The state file as JSON. */
  readState(): any;
  /** Replaces the state file (only while the helper is stopped, or for the reading paths). */
  writeState(state: unknown): void;
  /** Runs a command-line subcommand with the same environment. */
  cli(args: string[]): { exitCode: number; stdout: string; stderr: string };
  readonly running: boolean;
  readLog(): string;
  kill(signal?: 'SIGKILL' | 'SIGTERM'): Promise<number>;
  start(): Promise<void>;
  stop(): Promise<void>;
};

export async function startHelper(options: { env?: Record<string, string>; state?: unknown } = {}): Promise<HelperProcess> {
  const root = mkdtempSync(join(tmpdir(), 'cartridge-helper-'));
  const home = join(root, 'home');
  const workspace = join(root, 'Games');
  const statePath = join(home, 'state.json');
  const logPath = join(root, 'helper.log');
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: root,
    CARTRIDGE_HELPER_HOME: home,
    CARTRIDGE_HELPER_WORKSPACE: workspace,
    ...options.env,
  };
  if (options.state !== undefined) {
    mkdirSync(home, { recursive: true });
    writeFileSync(statePath, JSON.stringify(options.state));
  }
  let child: Subprocess | undefined;
  let exited = true;

  function readLog(): string {
    try {
      return readFileSync(logPath, 'utf8');
    } catch {
      return '';
    }
  }

  async function start(): Promise<void> {
    const logFd = openSync(logPath, 'a');
    const proc = Bun.spawn([process.execPath, helperMain, '--port', String(port)], { cwd: root, env, stdin: 'ignore', stdout: logFd, stderr: logFd });
    closeSync(logFd);
    child = proc;
    exited = false;
    void proc.exited.then(() => {
      if (child === proc) exited = true;
    });
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (exited) throw new Error(`the helper exited with ${proc.exitCode} while starting:\n${readLog()}`);
      try {
        const response = await fetch(`${url}/?method=version`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(2000) });
        if (response.status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`the helper did not answer within the deadline:\n${readLog()}`);
      }
      await Bun.sleep(30);
    }
  }

  async function kill(signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL'): Promise<number> {
    if (!child || exited) return child?.exitCode ?? 0;
    child.kill(signal);
    const code = await child.exited;
    exited = true;
    return code;
  }

  await start();

  return {
    url,
    port,
    root,
    home,
    workspace,
    statePath,
    env,
    async call(method, body = {}, init = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...init.headers };
      if (init.origin) headers.origin = init.origin;
      const response = await fetch(`${url}/?method=${encodeURIComponent(method)}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        // kept as text
      }
      return { status: response.status, headers: response.headers, body: parsed };
    },
    readState: () => JSON.parse(readFileSync(statePath, 'utf8')),
    writeState(state) {
      mkdirSync(home, { recursive: true });
      writeFileSync(statePath, JSON.stringify(state));
    },
    cli(args) {
      const result = Bun.spawnSync([process.execPath, helperMain, ...args], { cwd: root, env, stdin: 'ignore' });
      return { exitCode: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
    },
    get running() {
      return !exited;
    },
    readLog,
    kill,
    start,
    async stop() {
      await kill('SIGKILL');
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A raw HTTP/1.1 request (any Host header, any method), for what fetch will not send. */
export function rawRequest(port: number, request: string): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolveReply, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk) => {
      data += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', ...rest] = data.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      resolveReply({ status, head, body: rest.join('\r\n\r\n') });
    });
    socket.setTimeout(5000, () => socket.destroy(new Error('raw request timed out')));
  });
}

/** Polls `check` until it returns a value other than undefined (or throws after `timeoutMs`). */
export async function waitFor<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000, what = 'the condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}
