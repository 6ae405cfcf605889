import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootDeps, closeDeps } from '../../src/server/boot.ts';
import { ConfigError, loadConfig } from '../../src/server/config.ts';
import { secretKeyId } from '../../src/server/crypto/index.ts';
import { createTestDatabase, pgliteTemplate, type TestDatabase } from '../support/database.ts';

/**
 * Issue 20: every process of an instance holds the same SECRET_KEY. The database records the key id of
 * the first process; one started with another key refuses to start in one sentence (never printing a
 * key), a rotation (SECRET_KEY_PREVIOUS) moves the record on, and `cartridge admin adopt-secret-key`
 * makes another key the instance's on purpose. On PGlite (on disk, as `npm start` runs it) and on
 * PostgreSQL when DATABASE_URL is set.
 */
const keyA = 'instance-key-test-A-long-enough-0123456789abcdef';
const keyB = 'instance-key-test-B-long-enough-0123456789abcdef';
const keyC = 'instance-key-test-C-long-enough-0123456789abcdef';

let dataDir: string;
let database: TestDatabase;
let baseEnv: Record<string, string>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'cartridge-instance-key-'));
  database = await createTestDatabase();
  baseEnv = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...(database.url ? { DATABASE_URL: database.url } : {}) };
});
afterAll(async () => {
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

let seeded = false;

/** Boots the instance's database with these keys (as a server process would) and closes it again. */
async function boot(secretKey: string, previousSecretKey?: string): Promise<void> {
  const config = loadConfig({ ...baseEnv, SECRET_KEY: secretKey, ...(previousSecretKey ? { SECRET_KEY_PREVIOUS: previousSecretKey } : {}) });
  // An embedded database starts from the migrated template once; later boots open what is on disk.
  const template = database.url || seeded ? undefined : await pgliteTemplate();
  seeded = true;
  const deps = await bootDeps(config, { pgliteTemplate: template });
  await closeDeps(deps);
}

async function refusal(secretKey: string, previousSecretKey?: string): Promise<string> {
  const error = await boot(secretKey, previousSecretKey).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).message;
}

/** The server executable, as an operator runs it. */
async function cartridge(env: Record<string, string>, ...args: string[]) {
  const child = Bun.spawn([process.execPath, 'src/server/main.ts', ...args], {
    env: { ...process.env, ...baseEnv, PORT: '0', PLAY_PORT: '0', HOST: '127.0.0.1', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const timer = setTimeout(() => child.kill(), 60_000);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  return { stdout, stderr, code };
}

describe('the instance key', () => {
  test('the first process records its key; the same key starts again; another is refused in one sentence naming key ids only', async () => {
    await boot(keyA);
    await boot(keyA);
    const message = await refusal(keyB);
    expect(message).toContain(`key id ${secretKeyId(keyA)}`);
    expect(message).toContain(`this process has key id ${secretKeyId(keyB)}`);
    expect(message).toContain('cartridge admin adopt-secret-key');
    expect(message).not.toContain(keyA);
    expect(message).not.toContain(keyB);
    expect(message).not.toContain('\n');
    // The refusal changed nothing: A still starts, B still does not.
    await boot(keyA);
    await refusal(keyB);
  }, 60_000);

  test('a server process started with another key exits 2 with that sentence and never listens', async () => {
    const result = await cartridge({ SECRET_KEY: keyB });
    expect(result.code).toBe(2);
    expect(result.stderr).toStartWith('cartridge: SECRET_KEY is not the key');
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(`${result.stdout}${result.stderr}`).not.toContain(keyB);
    expect(result.stdout).not.toContain('listening');
  }, 60_000);

  test('a rotation: the new key with SECRET_KEY_PREVIOUS set to the instance key moves the record on; then the old key alone is refused', async () => {
    await boot(keyB, keyA);
    await boot(keyB);
    await boot(keyB, keyA);
    expect(await refusal(keyA)).toContain(`key id ${secretKeyId(keyB)}`);
    // A previous key that is not the instance's is no way in.
    await refusal(keyC, keyA);
  }, 60_000);

  test('admin adopt-secret-key makes another key the instance key on purpose; wrong usage changes nothing', async () => {
    const usage = await cartridge({ SECRET_KEY: keyC }, 'admin', 'adopt-secret-key', 'now');
    expect(usage.code).toBe(2);
    expect(usage.stdout).toContain('cartridge admin adopt-secret-key');
    await refusal(keyC);

    const adopted = await cartridge({ SECRET_KEY: keyC }, 'admin', 'adopt-secret-key');
    expect(adopted).toMatchObject({ code: 0, stdout: `The instance key is now key id ${secretKeyId(keyC)} (was ${secretKeyId(keyB)}): start every process with this SECRET_KEY.\n` });
    expect(adopted.stdout).not.toContain(keyC);
    await boot(keyC);
    await refusal(keyB);
    const again = await cartridge({ SECRET_KEY: keyC }, 'admin', 'adopt-secret-key');
    expect(again).toMatchObject({ code: 0, stdout: `The instance already uses this SECRET_KEY (key id ${secretKeyId(keyC)}).\n` });
  }, 60_000);
});
