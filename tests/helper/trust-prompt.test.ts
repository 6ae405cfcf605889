import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { findFreePort } from '../support/free-port.ts';
import { helperMain, waitFor } from './helper-process.ts';

/**
 * First-use confirmation in a terminal: the helper runs in a pseudo-terminal (util-linux `script`), a
 * page of an unknown origin calls, the helper refuses it at once and asks "Trust ...? [y/N]"; `y`
 * trusts it, anything else does not; each origin is asked once.
 */
let root: string;
let port: number;
let child: Subprocess<'pipe', 'pipe', 'pipe'>;
let output = '';

const call = (origin: string) =>
  fetch(`http://127.0.0.1:${port}/?method=version`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{}' });
const answer = (text: string) => {
  child.stdin.write(text);
  child.stdin.flush();
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cartridge-helper-tty-'));
  port = await findFreePort();
  const command = `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(helperMain)} --port ${port}`;
  child = Bun.spawn(['script', '-qfec', command, '/dev/null'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: root, CARTRIDGE_HELPER_HOME: join(root, 'home'), CARTRIDGE_HELPER_WORKSPACE: join(root, 'Games'), TERM: 'dumb' },
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
  });
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

test('an unknown page is refused at once and asked about once; y trusts it, n does not', async () => {
  const first = 'https://games.example';
  const refused = await call(first);
  expect(refused.status).toBe(403);
  await waitFor(() => (output.includes(`Trust ${first}? [y/N]`) ? true : undefined), 10_000, 'the question');
  // A second origin waits for its turn; the first is not asked again.
  expect((await call('https://other.example')).status).toBe(403);
  expect((await call(first)).status).toBe(403);
  answer('y\n');
  await waitFor(() => (output.includes(`Trusted ${first}`) ? true : undefined), 10_000, 'the trust');
  expect((await call(first)).status).toBe(200);
  expect(JSON.parse(readFileSync(join(root, 'home', 'state.json'), 'utf8')).trusted_origins).toEqual([first]);
  await waitFor(() => (output.includes('Trust https://other.example? [y/N]') ? true : undefined), 10_000, 'the second question');
  answer('n\n');
  await waitFor(() => (output.includes('Not trusted. To trust it later: cartridge-helper trust https://other.example') ? true : undefined), 10_000, 'the refusal');
  expect((await call('https://other.example')).status).toBe(403);
  expect(output.split(`Trust ${first}?`).length).toBe(2);
}, 30_000);
