/**
 * The embedded database's disk full (issue 28, items 2 and 5): the real server as a process with its
 * DATA_DIR (PGlite, blobs) on a small tmpfs. A write the database cannot make (disk_full, 53100) is
 * 507 out_of_storage with its sentence and a log line, never 500; the server answers on, and the
 * same write goes through once there is room. PGlite on purpose, whatever DATABASE_URL says: a
 * PostgreSQL server's disk is not the test's to fill.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { startChildServer, type ChildServer } from '../support/child-server.ts';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.ts';

const MiB = 1024 * 1024;
let disk: SmallDisk;
let server: ChildServer;
let token: string;
let projectId: string;

beforeAll(async () => {
  disk = mountSmallDisk(160 * MiB);
  server = await startChildServer({ dataDir: join(disk.dir, 'data'), embedded: true, env: { LOG_LEVEL: 'error', JOB_WORKERS: '0' } });
  const registered = await server.fetch('/api/auth/password', { method: 'POST', json: { name: 'diskfull', password: 'pw-diskfull-secret', intent: 'register' } });
  expect(registered.status).toBe(200);
  token = ((await registered.json()) as { authToken: string }).authToken;
  const created = await server.fetch('/api/projects', { method: 'POST', token, json: { title: 'Full disk' } });
  expect(created.status).toBe(200);
  projectId = ((await created.json()) as { id: string }).id;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  disk?.unmount();
});

/** 100,000 characters that do not compress: each version of the description takes its room. */
function markdown(seed: number): string {
  let state = seed;
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const out = new Array<string>(100_000);
  for (let i = 0; i < out.length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    out[i] = letters[state % letters.length]!;
  }
  return out.join('');
}

const putDescription = (seed: number) => server.fetch(`/api/projects/${projectId}/description`, { method: 'PUT', token, json: { markdown: markdown(seed) } });

describe('the database disk full', () => {
  test('a write it cannot make is 507 out_of_storage and logged; the server answers on and takes it once there is room', async () => {
    disk.fill(0);
    let refused: Response | undefined;
    // Pages with room in them take a few writes first; every write adds a version of ~100 kB.
    for (let seed = 1; seed <= 2000 && !refused; seed++) {
      const response = await putDescription(seed);
      if (response.status !== 200) refused = response;
    }
    expect(refused).toBeDefined();
    expect({ status: refused!.status, body: await refused!.json() }).toEqual({ status: 507, body: { code: 'out_of_storage', message: 'the server is out of storage space' } });
    expect(server.readLog()).toContain('"message":"out of storage"');
    expect((await server.fetch('/health')).status).toBe(200);

    disk.unfill();
    expect((await putDescription(9999)).status).toBe(200);
    const read = await server.fetch(`/api/projects/${projectId}/description`, { token });
    expect(((await read.json()) as { markdown: string }).markdown).toBe(markdown(9999));
  }, 120_000);
});
