import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootDeps, closeDeps } from '../../src/server/boot.ts';
import { loadConfig } from '../../src/server/config.ts';
import { signInWithPassword } from '../../src/server/domains/auth/auth.service.ts';
import { describeUser } from '../../src/server/domains/users/users.service.ts';
import { authenticateMachine } from '../../src/server/domains/cloud-play/machines.service.ts';
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

describe('cartridge admin machine (cloud-play host machines)', () => {
  test('add prints the token once (last line); list shows the machine without it; revoke ends its use', async () => {
    const added = await cartridge('admin', 'machine', 'add', 'Rack 1');
    expect(added.code).toBe(0);
    const lines = added.stdout.trimEnd().split('\n');
    const token = lines.at(-1)!;
    expect(token).toMatch(/^cm_[A-Za-z0-9_-]{43}$/);
    const id = /^Machine ([a-z0-9]+) \(Rack 1\) added\./.exec(lines[0]!)?.[1];
    expect(id).toBeDefined();

    const listed = await cartridge('admin', 'machine', 'list');
    expect(listed).toMatchObject({ code: 0, stdout: `${id}  Rack 1  never seen  sessions 0/0  agent -\n` });
    expect(listed.stdout).not.toContain(token);
    const deps = await bootDeps(loadConfig(env));
    try {
      expect((await authenticateMachine(deps.db, token)).id).toBe(id!);
    } finally {
      await closeDeps(deps);
    }

    const revoked = await cartridge('admin', 'machine', 'revoke', id!);
    expect(revoked).toMatchObject({ code: 0, stdout: `Machine ${id} (Rack 1) revoked; 0 sessions ended.\n` });
    expect((await cartridge('admin', 'machine', 'list')).stdout).toBe(`${id}  Rack 1  revoked  sessions 0/0  agent -\n`);
    const again = await bootDeps(loadConfig(env));
    try {
      await expect(authenticateMachine(again.db, token)).rejects.toMatchObject({ code: 'wrong_auth' });
    } finally {
      await closeDeps(again);
    }
  });

  test('refusals: an unknown machine, a bad title; wrong usage prints the usage', async () => {
    expect(await cartridge('admin', 'machine', 'revoke', 'nothing')).toMatchObject({ code: 1, stderr: 'cartridge: machine not found\n' });
    expect(await cartridge('admin', 'machine', 'add', 'bad\u0007title')).toMatchObject({ code: 1, stderr: 'cartridge: Invalid `title`\n' });
    for (const args of [['machine'], ['machine', 'add'], ['machine', 'list', 'extra'], ['machine', 'remove', 'x']]) {
      const result = await cartridge('admin', ...args);
      expect(result.code).toBe(2);
      expect(result.stdout).toContain('cartridge admin machine add TITLE');
    }
  });
});

describe('the admin command lives in the server executable', () => {
  test('the server --help lists it', async () => {
    const help = await cartridge('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('cartridge admin grant|revoke USER PRIVILEGE');
    expect(help.stdout).toContain('cartridge admin machine add|list|revoke');
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
