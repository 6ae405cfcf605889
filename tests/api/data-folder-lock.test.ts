import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/server/db/client.ts';
import { DataFolderInUseError, lockDataFolder } from '../../src/server/db/data-folder-lock.ts';
import { startChildServer, type ChildServer } from '../support/child-server.ts';
import { findFreePort } from '../support/free-port.ts';
import { mainScript } from '../support/server-process.ts';

/**
 * Issue 28: a second server on an embedded database's DATA_DIR used to start and listen, and acknowledged
 * writes of the first were lost. Now whoever opens it holds a kernel lock (db/data-folder-lock.ts): a
 * second server or admin command refuses in one sentence, and a kill -9 frees the folder at once.
 * With PostgreSQL, many processes share a DATA_DIR (file blobs on one machine): no lock.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
let server: ChildServer;
const users: { name: string; password: string }[] = [];

beforeAll(async () => {
  server = await startChildServer();
  for (let index = 0; index < 5; index += 1) {
    const user = { name: `acknowledged${index}`, password: `password of user ${index}` };
    const response = await server.fetch('/api/auth/password', { method: 'POST', json: { ...user, intent: 'register' } });
    expect(response.status).toBe(200);
    users.push(user);
  }
}, 60_000);
afterAll(() => server?.stop());

type Outcome = { listened: boolean; code: number | null; stdout: string; stderr: string };

/** Another `bun src/server/main.ts [args]` on the same environment: until it exits, or until it answers /health (then it is killed). */
async function secondProcess(args: string[] = []): Promise<Outcome> {
  const port = await findFreePort();
  const child = Bun.spawn([process.execPath, mainScript, ...args], { cwd: server.dataDir, env: { ...server.env, PORT: String(port) }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const output = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  let exited = false;
  void child.exited.then(() => (exited = true));
  let listened = false;
  while (!exited && !listened) {
    listened = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) }).then(
      (response) => response.status === 200,
      () => false,
    );
    if (!listened) await Promise.race([child.exited, Bun.sleep(50)]);
  }
  if (listened) child.kill('SIGKILL');
  const code = await child.exited;
  const [stdout, stderr] = await output;
  return { listened, code: listened ? null : code, stdout, stderr };
}

const topLevel = () => readdirSync(server.dataDir).filter((name) => name !== 'server.log').sort();

test.skipIf(onPostgres)('PGlite: a second server and an admin command refuse, naming the folder and the pid; after kill -9 a new server starts at once and every write is there', async () => {
  const holder = server.pid!;
  const sentence = `the data folder ${server.dataDir} is in use by process ${holder} (a Cartridge server or admin command): its embedded database opens in one process at a time, so stop that one first, or use PostgreSQL (DATABASE_URL) to run several`;
  const before = topLevel();
  expect(readFileSync(join(server.dataDir, 'db.lock'), 'utf8')).toBe(`${holder}\n`);

  const second = await secondProcess();
  expect(second).toEqual({ listened: false, code: 2, stdout: '', stderr: `cartridge: ${sentence}\n` });

  const grant = await secondProcess(['admin', 'grant', users[0]!.name, 'cloud_play']);
  expect(grant).toEqual({ listened: false, code: 1, stdout: '', stderr: `cartridge: ${sentence}\n` });

  // Nothing touched: the same files, the holder's pid still in the lock file, the first server serving.
  expect(topLevel()).toEqual(before);
  expect(readFileSync(join(server.dataDir, 'db.lock'), 'utf8')).toBe(`${holder}\n`);
  expect((await server.fetch('/health')).status).toBe(200);

  // kill -9 leaves the pid in the file, but the kernel dropped the lock with the process.
  await server.kill();
  await server.restart();
  expect(server.pid).not.toBe(holder);
  expect(readFileSync(join(server.dataDir, 'db.lock'), 'utf8')).toBe(`${server.pid}\n`);
  for (const user of users) {
    const signedIn = await server.fetch('/api/auth/password', { method: 'POST', json: { ...user, intent: 'login' } });
    expect(signedIn.status).toBe(200);
  }
}, 120_000);

test.skipIf(!onPostgres)('PostgreSQL: a second server on the same DATA_DIR starts (scale-out on one machine); no lock file is made', async () => {
  const second = await secondProcess();
  expect(second.listened).toBe(true);
  expect(topLevel()).not.toContain('db.lock');
  for (const user of users) {
    const signedIn = await server.fetch('/api/auth/password', { method: 'POST', json: { ...user, intent: 'login' } });
    expect(signedIn.status).toBe(200);
  }
}, 120_000);

test('in one process too, a folder opens once: a second open refuses naming this pid; after close it opens again', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cartridge-lock-'));
  try {
    const pgliteDir = join(dataDir, 'db');
    const first = await openDatabase({ pgliteDir });
    const refused = await openDatabase({ pgliteDir }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DataFolderInUseError);
    expect((refused as Error).message).toStartWith(`the data folder ${dataDir} is in use by process ${process.pid} `);
    expect(() => lockDataFolder(pgliteDir)).toThrow(DataFolderInUseError);
    await first.close();
    expect(readFileSync(join(dataDir, 'db.lock'), 'utf8')).toBe('');
    const again = lockDataFolder(pgliteDir);
    expect(readFileSync(join(dataDir, 'db.lock'), 'utf8')).toBe(`${process.pid}\n`);
    again.release();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);
