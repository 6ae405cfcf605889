import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Subprocess } from 'bun';
import { findFreePort } from '../support/free-port.ts';

const helperMain = resolve(import.meta.dir, '../../src/helper/main.ts');

/**
 * The real local companion app for the local-app page tests (client and e2e): `bun src/helper/main.ts
 * --port N` on a free port, its state (CARTRIDGE_HELPER_HOME) and first workspace
 * (CARTRIDGE_HELPER_WORKSPACE) in a temporary folder.
 */
export type LocalHelper = {
  url: string;
  port: number;
  root: string;
  workspace: string;
  /** `cartridge-helper ARGS` with the same environment (trust, workspace ...). */
  cli(args: string[]): { exitCode: number; stdout: string; stderr: string };
  readonly running: boolean;
  log(): string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops it and removes its folder. */
  dispose(): Promise<void>;
};

export async function startLocalHelper(options: { trust?: string[] } = {}): Promise<LocalHelper> {
  const root = mkdtempSync(join(tmpdir(), 'cartridge-local-app-'));
  const home = join(root, 'home');
  const workspace = join(root, 'Games');
  const logPath = join(root, 'helper.log');
  mkdirSync(home, { recursive: true });
  const port = await findFreePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: root,
    CARTRIDGE_HELPER_HOME: home,
    CARTRIDGE_HELPER_WORKSPACE: workspace,
  };
  let child: Subprocess | undefined;

  const cli = (args: string[]) => {
    const result = Bun.spawnSync([process.execPath, helperMain, ...args], { cwd: root, env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
    return { exitCode: result.exitCode ?? -1, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
  };
  const log = () => {
    try {
      return readFileSync(logPath, 'utf8');
    } catch {
      return '';
    }
  };

  const helper: LocalHelper = {
    url: `http://127.0.0.1:${port}`,
    port,
    root,
    workspace,
    cli,
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    log,
    async start() {
      const fd = openSync(logPath, 'a');
      const proc = Bun.spawn([process.execPath, helperMain, '--port', String(port)], { cwd: root, env, stdin: 'ignore', stdout: fd, stderr: fd });
      closeSync(fd);
      child = proc;
      const deadline = Date.now() + 20_000;
      for (;;) {
        if (proc.exitCode !== null) throw new Error(`the helper exited with ${proc.exitCode} while starting:\n${log()}`);
        const answered = await fetch(`${helper.url}/?method=version`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then(
          (response) => response.ok,
          () => false,
        );
        if (answered) return;
        if (Date.now() > deadline) throw new Error(`the helper did not answer within 20 s:\n${log()}`);
        await Bun.sleep(50);
      }
    },
    async stop() {
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const stopped = await Promise.race([proc.exited.then(() => true), Bun.sleep(8000).then(() => false)]);
      if (!stopped) {
        proc.kill('SIGKILL');
        await proc.exited;
      }
    },
    async dispose() {
      await helper.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
  for (const origin of options.trust ?? []) {
    const trusted = cli(['trust', origin]);
    if (trusted.exitCode !== 0) throw new Error(`cartridge-helper trust ${origin}: ${trusted.stderr}`);
  }
  await helper.start();
  return helper;
}
