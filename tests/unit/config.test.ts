import { describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, configVariables, loadConfig } from '../../src/server/config.ts';

const withDataDir = <T>(fn: (dir: string) => T): T => {
  const dir = mkdtempSync(join(tmpdir(), 'cartridge-config-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

describe('loadConfig', () => {
  test('has a default for everything', () =>
    withDataDir((dir) => {
      const config = loadConfig({ DATA_DIR: dir });
      expect(config).toMatchObject({
        port: 3000,
        dataDir: dir,
        databaseUrl: undefined,
        storageUrl: 'file:',
        appName: 'Cartridge',
        authRequired: false,
        registration: 'open',
        defaultPrivileges: ['create_project'],
        logLevel: 'info',
      });
    }));

  test('generates the secret key once and keeps it in DATA_DIR', () =>
    withDataDir((dir) => {
      const first = loadConfig({ DATA_DIR: dir }).secretKey;
      expect(first.length).toBeGreaterThanOrEqual(43);
      expect(loadConfig({ DATA_DIR: dir }).secretKey).toBe(first);
      expect(readFileSync(join(dir, 'secret.key'), 'utf8').trim()).toBe(first);
      expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    }));

  test('a given SECRET_KEY is used and nothing is written', () =>
    withDataDir((dir) => {
      expect(loadConfig({ DATA_DIR: dir, SECRET_KEY: 'k'.repeat(40) }).secretKey).toBe('k'.repeat(40));
      expect(existsSync(join(dir, 'secret.key'))).toBe(false);
    }));

  test('SECRET_KEY_PREVIOUS is optional and read as given', () => {
    const env = { DATA_DIR: '/tmp/unused', SECRET_KEY: 'k'.repeat(32) };
    expect(loadConfig(env).previousSecretKey).toBeUndefined();
    expect(loadConfig({ ...env, SECRET_KEY_PREVIOUS: 'p'.repeat(32) }).previousSecretKey).toBe('p'.repeat(32));
  });

  test.each([
    [{ PORT: 'eighty' }, /^Invalid PORT="eighty": /],
    [{ PORT: '70000' }, /^Invalid PORT="70000": /],
    [{ DATABASE_URL: 'mysql://x' }, /^Invalid DATABASE_URL="mysql:\/\/x": must be a URL starting with postgres: or postgresql:$/],
    [{ STORAGE_URL: 'ftp://bucket' }, /^Invalid STORAGE_URL="ftp:\/\/bucket": must be file:/],
    [{ SECRET_KEY: 'short' }, /^Invalid SECRET_KEY="short": must be at least 32 characters$/],
    [{ SECRET_KEY_PREVIOUS: 'short-secret' }, /^Invalid SECRET_KEY_PREVIOUS: must be at least 32 characters$/],
    [{ DEFAULT_PRIVILEGES: 'create_project,root' }, /^Invalid DEFAULT_PRIVILEGES=/],
    [{ AUTH_REQUIRED: 'maybe' }, /^Invalid AUTH_REQUIRED="maybe"/],
    [{ SIGN_IN_LIMIT_ADDRESS: '0' }, /^Invalid SIGN_IN_LIMIT_ADDRESS="0"/],
    [{ SOCIAL_LINKS: 'GitHub' }, /^Invalid SOCIAL_LINKS="GitHub": must be Name=https:\/\/url pairs separated by commas$/],
    [{ SOCIAL_LINKS: 'Chat=javascript:alert(1)' }, /^Invalid SOCIAL_LINKS=/],
    [{ REPORT_EMAIL: 'not-an-address' }, /^Invalid REPORT_EMAIL="not-an-address": must be an e-mail address$/],
    [{ STORAGE_FREE_FLOOR: 'a lot' }, /^Invalid STORAGE_FREE_FLOOR="a lot": bytes \(1073741824\) or a share of the disk \(5%\)$/],
    [{ STORAGE_FREE_FLOOR: '101%' }, /^Invalid STORAGE_FREE_FLOOR="101%"/],
    [{ STORAGE_FREE_FLOOR: '-1' }, /^Invalid STORAGE_FREE_FLOOR="-1"/],
    [{ STORAGE_FREE_FLOOR: '1e9' }, /^Invalid STORAGE_FREE_FLOOR="1e9"/],
    [{ IMAGE_WORKER_CONCURRENCY: '0' }, /^Invalid IMAGE_WORKER_CONCURRENCY="0"/],
    [{ IMAGE_WORKER_MEMORY_MB: '10' }, /^Invalid IMAGE_WORKER_MEMORY_MB="10"/],
    // Past the server's 120 s idle timeout the request would be cut without a reply.
    [{ IMAGE_FINALIZE_WAIT_SECONDS: '200' }, /^Invalid IMAGE_FINALIZE_WAIT_SECONDS="200"/],
  ])('a bad value %j is one clear line', (env, message) => {
    expect(() => loadConfig({ DATA_DIR: '/tmp/unused', SECRET_KEY: 'k'.repeat(32), ...env })).toThrow(ConfigError);
    try {
      loadConfig({ DATA_DIR: '/tmp/unused', SECRET_KEY: 'k'.repeat(32), ...env });
    } catch (error) {
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('\n');
    }
  });

  test('STORAGE_FREE_FLOOR is 1 GiB unless given in bytes or as a share of the disk', () => {
    const floorOf = (value?: string) => loadConfig({ DATA_DIR: '/tmp/unused', SECRET_KEY: 'k'.repeat(32), ...(value === undefined ? {} : { STORAGE_FREE_FLOOR: value }) }).downloads.freeFloor;
    expect(floorOf()).toEqual({ bytes: 1024 ** 3 });
    expect(floorOf('0')).toEqual({ bytes: 0 });
    expect(floorOf(' 536870912 ')).toEqual({ bytes: 536870912 });
    expect(floorOf('5%')).toEqual({ percent: 5 });
    expect(floorOf('2.5%')).toEqual({ percent: 2.5 });
  });

  test('reads the documented variables', () =>
    withDataDir((dir) => {
      const config = loadConfig({
        DATA_DIR: dir,
        PORT: '8080',
        DATABASE_URL: 'postgres://u@db:5432/cartridge',
        STORAGE_URL: 's3://my-bucket/prefix',
        PUBLIC_URL: 'https://games.example.com/',
        AUTH_REQUIRED: 'true',
        REGISTRATION: 'closed',
        DEFAULT_PRIVILEGES: '',
        SECRET_KEY: 's'.repeat(32),
        IMAGE_WORKER_CONCURRENCY: '2',
        IMAGE_WORKER_THREADS: '3',
        IMAGE_WORKER_MEMORY_MB: '512',
        IMAGE_FINALIZE_WAIT_SECONDS: '30',
      });
      expect(config).toMatchObject({
        port: 8080,
        databaseUrl: 'postgres://u@db:5432/cartridge',
        storageUrl: 's3://my-bucket/prefix',
        publicUrl: 'https://games.example.com',
        authRequired: true,
        registration: 'closed',
        defaultPrivileges: [],
        contentImages: { worker: { concurrency: 2, threads: 3, memoryBytes: 512 * 1024 * 1024 }, finalizeWaitMs: 30_000 },
      });
    }));
});

describe('cartridge --help', () => {
  test('lists every variable', async () => {
    const child = Bun.spawn([process.execPath, 'src/server/main.ts', '--help'], { stdout: 'pipe' });
    const output = await new Response(child.stdout).text();
    expect(await child.exited).toBe(0);
    for (const [name] of configVariables) expect(output).toContain(name);
  });

  test('a bad value stops the server with one line and exit code 2', async () => {
    const child = Bun.spawn([process.execPath, 'src/server/main.ts'], { env: { ...process.env, PORT: 'nope' }, stderr: 'pipe', stdout: 'pipe' });
    const errors = await new Response(child.stderr).text();
    expect(await child.exited).toBe(2);
    expect(errors.trim()).toBe('cartridge: Invalid PORT="nope": Invalid input: expected number, received NaN');
  });
});
