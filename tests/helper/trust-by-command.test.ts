import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { findFreePort } from '../support/free-port.ts';
import { helperMain, waitFor } from './helper-process.ts';

/**
 * Trusting a page is something the user starts (issue 28): the helper runs in a pseudo-terminal
 * (util-linux `script`), as a person starts it, and a page of an unknown origin calls. The page gets
 * 403 not_trusted with the command to run; the terminal shows one refusal line that neither asks nor
 * offers to trust that origin, and typing "y" there trusts nothing. `cartridge-helper trust URL` does,
 * at once.
 */
let root: string;
let port: number;
let child: Subprocess<'pipe', 'pipe', 'pipe'>;
let output = '';
const env = () => ({ PATH: process.env.PATH ?? '', HOME: root, CARTRIDGE_HELPER_HOME: join(root, 'home'), CARTRIDGE_HELPER_WORKSPACE: join(root, 'Games'), TERM: 'dumb' });

const call = (origin: string) =>
  fetch(`http://127.0.0.1:${port}/?method=version`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{}' });
const type = (text: string) => {
  child.stdin.write(text);
  child.stdin.flush();
};
/** The state file's trusted origins (no file yet: none). */
function trustedOrigins(): string[] {
  try {
    return JSON.parse(readFileSync(join(root, 'home', 'state.json'), 'utf8')).trusted_origins;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cartridge-helper-tty-'));
  port = await findFreePort();
  const command = `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(helperMain)} --port ${port}`;
  child = Bun.spawn(['script', '-qfec', command, '/dev/null'], { cwd: root, env: env(), stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' });
  void (async () => {
    const decoder = new TextDecoder();
    const reader = child.stdout.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      output += decoder.decode(value, { stream: true });
    }
  })();
  await waitFor(() => (output.includes('listening on') ? true : undefined), 20_000, `the helper to listen:\n${output}`);
});

afterAll(async () => {
  child.kill('SIGTERM');
  await child.exited;
  rmSync(root, { recursive: true, force: true });
});

test('a calling page never raises a question in the terminal; "y" typed there trusts nothing; only `trust URL` does', async () => {
  const stranger = 'https://games.example';
  const refused = await call(stranger);
  expect(refused.status).toBe(403);
  expect(refused.headers.get('access-control-allow-origin')).toBe(stranger);
  expect(await refused.json()).toMatchObject({ code: 'not_trusted', message: `This site (${stranger}) is not trusted by the local app yet: run  cartridge-helper trust ${stranger}`, details: { origin: stranger } });
  // The helper's reaction to the call (a refusal line on the new code, the question on the old).
  await waitFor(() => (output.includes(`Refused a page of ${stranger}`) || output.includes('[y/N]') ? true : undefined), 10_000, `the helper's reaction:\n${output}`);
  expect(output).not.toContain('[y/N]');
  expect(output).not.toContain(`Trust ${stranger}?`);
  expect(output).not.toContain(`cartridge-helper trust ${stranger}`);

  // Answering as the old prompt wanted changes nothing; the page is still refused, and logged once.
  type('y\n');
  expect((await call(stranger)).status).toBe(403);
  expect((await call('https://other.example')).status).toBe(403);
  await waitFor(() => (output.includes('Refused a page of https://other.example') ? true : undefined), 10_000, 'the second refusal');
  expect(output.split(`Refused a page of ${stranger}`).length).toBe(2);
  expect(trustedOrigins()).toEqual([]);
  expect(output).not.toContain('[y/N]');

  // The user trusts their server with the command: it works at once, without a restart.
  const mine = 'https://cartridge.example';
  const trust = Bun.spawnSync([process.execPath, helperMain, 'trust', `${mine}/some/page`], { cwd: root, env: env() });
  expect(trust.stdout.toString()).toBe(`Trusted ${mine}\n`);
  expect(trust.exitCode).toBe(0);
  expect(trustedOrigins()).toEqual([mine]);
  const trusted = await call(mine);
  expect(trusted.status).toBe(200);
  expect(trusted.headers.get('access-control-allow-origin')).toBe(mine);
  expect((await call(stranger)).status).toBe(403);
}, 30_000);
