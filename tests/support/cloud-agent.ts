import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { mountsBelow } from '../../cloudhost/src/session-disk.ts';

/**
 * The real cloud-play host agent (dist/cloudhost.js under node) for tests: built when missing or older
 * than its sources, started with a machine token (through CLOUDHOST_TOKEN, as in production: never in
 * argv) and a temporary work dir, and stopped with SIGTERM (its clean shutdown) or SIGKILL.
 *
 *   const agent = await startCloudAgent({ server: server.url, token, capacity: 2 });
 *   await agent.waitForLog(/connected to the server/);
 *   ...
 *   await agent.stop();
 */
const root = resolve(import.meta.dir, '..', '..');
const cloudhostBundle = join(root, 'dist', 'cloudhost.js');

function newestSource(path: string): number {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestSource(join(path, name)));
  return newest;
}

let building: Promise<string> | undefined;

/** Builds dist/cloudhost.js unless it is newer than cloudhost/src, src/shared and the build script. */
function buildCloudhost(): Promise<string> {
  building ??= (async () => {
    const sources = [join(root, 'cloudhost', 'src'), join(root, 'src', 'shared'), join(root, 'src', 'tools', 'build-cloudhost.ts'), join(root, 'package.json')];
    const newest = Math.max(...sources.map(newestSource));
    if (existsSync(cloudhostBundle) && statSync(cloudhostBundle).mtimeMs >= newest) return cloudhostBundle;
    // Built under a name of its own and renamed: two test files building at once never see half a file.
    const outfile = join(root, 'dist', `cloudhost.${process.pid}.${Date.now()}.js`);
    const build = Bun.spawnSync(['bun', join(root, 'src', 'tools', 'build-cloudhost.ts'), '--outfile', outfile], { cwd: root, stdout: 'pipe', stderr: 'pipe' });
    if (build.exitCode !== 0) throw new Error(`building the host agent failed: ${build.stderr.toString()}${build.stdout.toString()}`);
    renameSync(outfile, cloudhostBundle);
    return cloudhostBundle;
  })();
  return building;
}

export type CloudAgentOptions = {
  server: string;
  token: string;
  capacity?: number;
  /** A temporary folder (removed by stop) unless given. */
  workDir?: string;
  /** More command-line options (--codec vp8, --log-level info, ...). */
  args?: string[];
  env?: Record<string, string>;
  /** A command the agent is started through (`setpriv --bounding-set=...`, say): it ends with `node ...`. */
  prefix?: string[];
  /** Print the agent's log lines as they come (or set CLOUDHOST_TEST_LOG=1). */
  echo?: boolean;
};

export type RunningCloudAgent = {
  process: ChildProcess;
  workDir: string;
  /** Session k's game runs as uidBase + k, its servers and encoders as uidBase + 64 + k (when the tests run as root). */
  uidBase: number;
  /** Mounts found below the work dir once the agent had exited (set by stop). */
  leftoverMounts: string[];
  /** Every line the agent wrote (stderr and stdout). */
  logs: string[];
  /** Resolves with the first log line (past or future) matching `pattern`. */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code once the agent has exited. */
  exited: Promise<number | null>;
  /** SIGTERM (the agent ends its sessions and reports them) or SIGKILL; then the work dir goes, if it was ours. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<number | null>;
};

export async function startCloudAgent(options: CloudAgentOptions): Promise<RunningCloudAgent> {
  const bundle = await buildCloudhost();
  const ownDir = options.workDir === undefined;
  const workDir = options.workDir ?? mkdtempSync(join(tmpdir(), 'cloudhost-agent-'));
  mkdirSync(workDir, { recursive: true });
  // A uid range of its own (games base+k, services base+64+k), so agents of tests running at once
  // never share a user, and a test can look for processes of its agent's users.
  const given = options.args?.indexOf('--sandbox-uid-base') ?? -1;
  const uidBase = given >= 0 ? Number(options.args![given + 1]) : 100_000 + 128 * Math.floor(Math.random() * 20_000);
  const uidArgs = given >= 0 ? [] : ['--sandbox-uid-base', String(uidBase)];
  const args = [bundle, '--server', options.server, '--capacity', String(options.capacity ?? 1), '--work-dir', workDir, '--log-level', 'debug', ...uidArgs, ...(options.args ?? [])];
  const [program, ...programArgs] = [...(options.prefix ?? []), 'node', ...args];
  const child = spawn(program!, programArgs, {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', CLOUDHOST_TOKEN: options.token, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const echo = options.echo ?? process.env.CLOUDHOST_TEST_LOG === '1';
  const onText = (text: string) => {
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      logs.push(line);
      if (echo) console.log(`[agent] ${line}`);
      for (const waiter of [...waiters]) {
        if (!waiter.pattern.test(line)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  };
  let partial = { out: '', err: '' };
  const reader = (key: 'out' | 'err') => (chunk: Buffer) => {
    const lines = (partial[key] + chunk.toString('utf8')).split('\n');
    partial[key] = lines.pop() ?? '';
    onText(lines.join('\n'));
  };
  child.stdout!.on('data', reader('out'));
  child.stderr!.on('data', reader('err'));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));

  const agent: RunningCloudAgent = {
    process: child,
    workDir,
    uidBase,
    leftoverMounts: [],
    logs,
    exited,
    waitForLog(pattern, timeoutMs = 20_000) {
      const found = logs.find((line) => pattern.test(line));
      if (found) return Promise.resolve(found);
      return new Promise((resolveLine, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.findIndex((waiter) => waiter.resolve === done), 1);
          reject(new Error(`no agent log line matched ${pattern} in ${timeoutMs} ms; the log:\n${logs.slice(-30).join('\n')}`));
        }, timeoutMs);
        const done = (line: string) => {
          clearTimeout(timer);
          resolveLine(line);
        };
        waiters.push({ pattern, resolve: done });
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      agent.leftoverMounts = mountsBelow(workDir);
      if (ownDir) {
        // A killed agent leaves its sessions' tmpfs mounted (its next start unmounts them): unmount them here.
        for (const point of [...agent.leftoverMounts].sort((a, b) => b.length - a.length)) spawnSync('umount', ['--lazy', point]);
        rmSync(workDir, { recursive: true, force: true });
      }
      return code;
    },
  };
  return agent;
}

/** Pids of the processes running as one of the uids from..from+count-1 (an agent's sessions: games, servers, encoders). */
export function processesOfUids(from: number, count: number, except: readonly number[] = []): string[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && !except.includes(Number(name)))
    .filter((pid) => {
      try {
        const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
        return uid >= from && uid < from + count;
      } catch {
        return false;
      }
    });
}
