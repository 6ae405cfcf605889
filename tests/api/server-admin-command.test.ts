import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootDeps, closeDeps } from '../../src/server/boot.ts';
import { loadConfig } from '../../src/server/config.ts';
import { signInWithPassword } from '../../src/server/domains/auth/auth.service.ts';
import { describeUser } from '../../src/server/domains/users/users.service.ts';
import { createTestDatabase, pgliteTemplate, type TestDatabase } from '../support/database.ts';

let dataDir: string;
let database: TestDatabase;
let env: Record<string, string>;
let memberId: string;

/** The command talks to the instance database itself; the server must not hold an embedded one open. */
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'cartridge-cli-'));
  database = await createTestDatabase();
  env = { DATA_DIR: dataDir, SECRET_KEY: 'cli-test-secret-key-long-enough-0123456789', LOG_LEVEL: 'silent', ...(database.url ? { DATABASE_URL: database.url } : {}) };
  const deps = await bootDeps(loadConfig(env), { pgliteTemplate: database.url ? undefined : await pgliteTemplate() });
  await signInWithPassword(deps, { name: 'founder', password: 'founder password', intent: 'register' }, {});
  const member = await signInWithPassword(deps, { name: 'member', password: 'member password', intent: 'register' }, {});
  memberId = member.session.userInfo!.id;
  await closeDeps(deps);
});
afterAll(async () => {
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The server executable (`cartridge admin ...` in the compiled binary), or the command-line client with cli. */
async function run(entry: string, args: string[]) {
  const child = Bun.spawn([process.execPath, entry, ...args], { env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, code };
}
const cartridge = (...args: string[]) => run('src/server/main.ts', args);

async function privilegesOfMember(): Promise<string[]> {
  const deps = await bootDeps(loadConfig(env));
  try {
    return (await describeUser(deps.db, memberId)).privileges;
  } finally {
    await closeDeps(deps);
  }
}

describe('cartridge admin', () => {
  test('grants and revokes a privilege by sign-in name', async () => {
    const granted = await cartridge('admin', 'grant', 'member', 'cloud_play');
    expect(granted).toMatchObject({ code: 0, stdout: 'member (member): create_project, cloud_play\n' });
    expect(await privilegesOfMember()).toEqual(['create_project', 'cloud_play']);
    const revoked = await cartridge('admin', 'revoke', memberId, 'create_project');
    expect(revoked).toMatchObject({ code: 0, stdout: 'member (member): cloud_play\n' });
    expect(await privilegesOfMember()).toEqual(['cloud_play']);
  });

  test('an unknown user or privilege changes nothing', async () => {
    const unknownUser = await cartridge('admin', 'grant', 'nobody', 'cloud_play');
    expect(unknownUser.code).toBe(1);
    expect(unknownUser.stderr).toBe('cartridge: user not found\n');
    const unknownPrivilege = await cartridge('admin', 'grant', 'member', 'root');
    expect(unknownPrivilege.code).toBe(1);
    expect(unknownPrivilege.stderr).toBe('cartridge: Invalid `privilege`\n');
    expect(await privilegesOfMember()).toEqual(['cloud_play']);
  });

  test('wrong usage prints the usage and exits 2', async () => {
    const result = await cartridge('admin', 'grant', 'member');
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('cartridge admin grant USER PRIVILEGE');
  });
});

describe('the admin command lives in the server executable', () => {
  test('the server --help lists it', async () => {
    const help = await cartridge('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('cartridge admin grant|revoke USER PRIVILEGE');
  });

  test('an unknown server command exits 2 without starting a server', async () => {
    const result = await cartridge('admn', 'grant', 'member', 'cloud_play');
    expect(result.code).toBe(2);
    expect(result.stderr).toStartWith('cartridge: unknown command admn\n');
  });

  test('the command-line client no longer has it: an unknown command, like any other', async () => {
    const client = (...args: string[]) => run('src/cli/main.ts', args);
    const admin = await client('admin', 'grant', 'member', 'cloud_play');
    const other = await client('nonsense');
    expect(admin.code).toBe(other.code);
    expect(admin.stderr).toStartWith('cartridge: unknown command admin\n');
    expect(admin.stderr.replace('admin', 'nonsense')).toBe(other.stderr);
    expect((await client('--help')).stdout).not.toContain('admin');
    expect(await privilegesOfMember()).toEqual(['cloud_play']);
  });
});
