import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * A port the server cannot bind (PORT, or PLAY_PORT = PORT+1 for the play origin) ends the real server
 * process (`bun src/server/main.ts`) like any bad setting: one line `cartridge: …` naming the variable,
 * exit 2, no stack trace.
 */
const mainScript = resolve(import.meta.dir, '../../src/server/main.ts');
let dataDir: string;
let holder: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'cartridge-ports-'));
  // Another program on the port: this test process holds it for the whole file.
  holder = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('someone else') });
});
afterAll(async () => {
  await holder.stop(true);
  rmSync(dataDir, { recursive: true, force: true });
});

async function runServer(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = Bun.spawn([process.execPath, mainScript], {
    cwd: dataDir,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dataDir,
      TMPDIR: process.env.TMPDIR ?? tmpdir(),
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      SECRET_KEY: 'ports-test-secret-key-that-is-long-enough-0123',
      LOG_LEVEL: 'error',
      JOB_WORKERS: '0',
      ...env,
    },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  // Should it start after all, it would never exit by itself: the deadline ends it (and the test fails).
  const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

describe('a port already in use', () => {
  test('PLAY_PORT (default PORT+1) taken: one line naming PLAY_PORT, exit 2', async () => {
    const taken = holder.port!;
    const run = await runServer({ PORT: String(taken - 1) });
    expect(run.stderr.trim().split('\n')).toEqual([
      `cartridge: PLAY_PORT=${taken} is already in use on 127.0.0.1: the play origin (HTML5 games; PLAY_PORT defaults to PORT+1) cannot listen there; stop what holds it or set PLAY_PORT to a free port`,
    ]);
    expect(run.stderr).not.toContain('EADDRINUSE');
    expect(run.code).toBe(2);
  }, 60_000);

  test('PORT taken: one line naming PORT, exit 2', async () => {
    const run = await runServer({ PORT: String(holder.port), PLAY_PORT: '0' });
    expect(run.stderr.trim().split('\n')).toEqual([
      `cartridge: PORT=${holder.port} is already in use on 127.0.0.1: the app cannot listen there; stop what holds it or set PORT to a free port`,
    ]);
    expect(run.code).toBe(2);
    // The port's owner is left alone.
    expect(await (await fetch(`http://127.0.0.1:${holder.port}/`)).text()).toBe('someone else');
  }, 60_000);
});
