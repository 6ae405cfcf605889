import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/**
 * A program the agent started, in a process group of its own (detached), so ending it ends
 * everything it started too. stderr's last lines are kept for error messages. It is started through
 * `setpriv --pdeathsig=KILL`, so it dies with the agent even when the agent is killed outright
 * (SIGKILL, OOM) and has no chance to stop it.
 */
export class ManagedProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private tail: string[] = [];
  private stopping = false;
  /** What the program wrote so far on each fd given as 'read' (at most 64 KiB each). */
  readonly fdText: Record<number, string> = {};

  constructor(
    readonly name: string,
    command: string,
    args: readonly string[],
    options: SpawnOptions & { onStderrLine?: (line: string) => void; fds?: readonly (Uint8Array | 'read')[] } = {},
  ) {
    const { onStderrLine, fds = [], ...spawnOptions } = options;
    // fds 3, 4, ...: a pipe written whole and closed (what the program reads: bubblewrap's --args and
    // --seccomp, so nothing of it shows in a command line), or one the program writes ('read': its
    // text in fdText, bubblewrap's --info-fd).
    const stdio: SpawnOptions['stdio'] = ['ignore', 'ignore', 'pipe', ...fds.map(() => 'pipe' as const)];
    this.child = spawn('setpriv', ['--pdeathsig=KILL', '--', command, ...args], { stdio, ...spawnOptions, detached: true });
    fds.forEach((content, index) => {
      const pipe = this.child.stdio[3 + index] as (Writable & Readable) | null;
      if (!pipe) return;
      pipe.on('error', () => undefined);
      if (content === 'read') {
        this.fdText[3 + index] = '';
        pipe.setEncoding('utf8');
        pipe.on('data', (text: string) => {
          this.fdText[3 + index] = (this.fdText[3 + index] ?? '').concat(text).slice(0, 64 * 1024);
        });
      } else {
        pipe.end(content, () => pipe.destroy());
      }
    });
    this.exited = new Promise((resolve) => {
      this.child.once('error', (error) => {
        this.keep(`${name}: ${error.message}`);
        this.exitInfo ??= { code: -1, signal: null };
        resolve(this.exitInfo);
      });
      this.child.once('exit', (code, signal) => {
        this.exitInfo ??= { code, signal };
        resolve(this.exitInfo);
      });
    });
    let partial = '';
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (text: string) => {
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        this.keep(line);
        onStderrLine?.(line);
      }
    });
  }

  private keep(line: string): void {
    this.tail.push(line.slice(0, 300));
    if (this.tail.length > 8) this.tail.shift();
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exitInfo === undefined;
  }

  /** The last lines it wrote to stderr. */
  stderrTail(): string {
    return this.tail.join(' | ');
  }

  /** True when the agent asked it to stop (an exit after that is no failure). */
  get stopRequested(): boolean {
    return this.stopping;
  }

  /** SIGTERM to the whole group, SIGKILL after `graceMs`; resolves once the leader has exited. */
  async stop(graceMs = 2000): Promise<void> {
    this.stopping = true;
    if (!this.running || this.child.pid === undefined) return;
    signalGroup(this.child.pid, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(this.child.pid!, 'SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
    // Anything of the group still alive (a child that ignored SIGTERM) goes now.
    signalGroup(this.child.pid, 'SIGKILL');
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Gone already.
  }
}

/** Resolves when `check` holds (checked every `everyMs`), rejects after `timeoutMs` or when `failed` says why. */
export async function waitFor(check: () => boolean | Promise<boolean>, options: { timeoutMs: number; everyMs?: number; what: string; failed?: () => string | undefined }): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (await check()) return;
    const failure = options.failed?.();
    if (failure !== undefined) throw new Error(`${options.what}: ${failure}`);
    if (Date.now() > deadline) throw new Error(`${options.what}: not ready after ${options.timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 25));
  }
}
