/**
 * `cartridge push` to a server whose disk is full (issue 28, item 5): the server's sentence is printed
 * at once, exit 5, no "trying again" (a full disk does not empty itself in a retry's pause); the same
 * push goes through once the operator made room.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { TestUser } from '../support/accounts.ts';
import type { TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.ts';
import { cliEnv, generatedBuild, pushTarget, removeDir, runCli, temporaryDir, writeBuild } from './support.ts';

const MiB = 1024 * 1024;
let disk: SmallDisk;
let server: TestServer;
let owner: TestUser;
let project: TestProject;
let home: string;
let buildDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  disk = mountSmallDisk(32 * MiB);
  server = await startTestServer({ DATA_DIR: join(disk.dir, 'data'), UPLOAD_PART_SIZE: String(512 * 1024), STORAGE_FREE_FLOOR: '0' });
  let apiToken: string;
  ({ owner, project, apiToken } = await pushTarget(server));
  home = temporaryDir('full-home');
  buildDir = temporaryDir('full-build');
  writeBuild(buildDir, generatedBuild());
  env = cliEnv(home, { CARTRIDGE_SERVER: server.url, CARTRIDGE_TOKEN: apiToken });
});
afterAll(async () => {
  await server?.stop();
  disk?.unmount();
  removeDir(home);
  removeDir(buildDir);
});

const push = () => runCli(['push', buildDir, `${project.id}/main`, '--tags', 'os:linux', '--entrypoint', 'game.x86_64'], env);

describe('cartridge push and a full disk', () => {
  test('says the server is out of storage space, exit 5, without trying again; the push goes through once there is room', async () => {
    disk.fill(256 * 1024);
    const refused = await push();
    expect(refused.stderr).toContain('the server is out of storage space (out_of_storage)');
    expect(refused.stderr).not.toContain('trying again');
    expect(refused.stderr).not.toContain('unexpected_error');
    expect(refused.code).toBe(5);

    disk.unfill();
    const pushed = await push();
    expect(pushed.stderr).not.toContain('cartridge:');
    expect(pushed.code).toBe(0);
  }, 60_000);
});
