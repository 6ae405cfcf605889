import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { cloudMachines } from '../../src/server/db/schema/index.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { addMachine, createSession, uploadLinuxGame } from './cloud-play-support.ts';

/**
 * Issue 27: GET /cloud-play/availability (cloudPlay.availability), which the pages ask before they offer
 * Play in cloud: whether a machine is online to take a session now (registered, not revoked, called
 * within CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS, capacity above 0). Every caller may ask and gets the same
 * yes or no, nothing more; hostile input changes nothing.
 */
let server: TestServer;
let admin: TestUser;
let user: TestUser;

beforeAll(async () => {
  server = await startTestServer({ CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS: '30', CLOUD_PLAY_HEARTBEAT_SECONDS: '2' });
  admin = await registerUser(server);
  user = await registerUser(server);
}, 60_000);
afterAll(() => server.stop());
afterEach(async () => {
  await server.deps.db.update(cloudMachines).set({ revoked: true });
});

async function availability(init: Parameters<TestServer['fetch']>[1] = {}): Promise<{ status: number; cache: string | null; body: unknown }> {
  const response = await server.fetch('/api/cloud-play/availability', init);
  return { status: response.status, cache: response.headers.get('cache-control'), body: await response.json() };
}

describe('whether a machine is online', () => {
  test('no machine, a machine never seen, one with capacity 0, a revoked one, one silent past the timeout: no; a live one with room: yes', async () => {
    const no = { status: 200, cache: 'no-store', body: { machineOnline: false } };
    const yes = { status: 200, cache: 'no-store', body: { machineOnline: true } };
    expect(await availability()).toEqual(no);
    const machine = await addMachine(server, admin, { capacity: 0 });
    expect(await availability()).toEqual(no);
    await machine.provide();
    expect(await availability()).toEqual(no);
    machine.capacity = 2;
    await machine.provide();
    expect(await availability()).toEqual(yes);
    expect(await server.trpc().cloudPlay.availability.query()).toEqual({ machineOnline: true });

    await server.deps.db.update(cloudMachines).set({ lastSeenAt: sql`now() - interval '31 seconds'` }).where(eq(cloudMachines.id, machine.id));
    expect(await availability()).toEqual(no);
    await machine.provide();
    expect(await availability()).toEqual(yes);
    await server.trpc(admin.token).admin.cloudMachines.revoke.mutate({ machine: machine.id });
    expect(await availability()).toEqual(no);
    expect(await server.trpc(user.token).cloudPlay.availability.query()).toEqual({ machineOnline: false });
  });

  test('a full machine is online (a new session waits for its slot)', async () => {
    const project = await createProject(server, admin);
    const game = (await uploadLinuxGame(server, admin, project.id)).id;
    const machine = await addMachine(server, admin, { capacity: 1 });
    await machine.provide();
    await createSession(server, admin, project.id, game);
    expect((await availability()).body).toEqual({ machineOnline: true });
  });
});

describe('every caller, hostile input', () => {
  test('visitors, users, API and cookie callers, machine and player tokens get the same answer, and only that', async () => {
    const machine = await addMachine(server, admin, { capacity: 1 });
    await machine.provide();
    const callers: Parameters<TestServer['fetch']>[1][] = [{}, { token: user.token }, { token: admin.token }, { headers: { cookie: user.cookie } }];
    for (const caller of callers) expect(await availability(caller)).toEqual({ status: 200, cache: 'no-store', body: { machineOnline: true } });
    // The call reads no caller: a machine's or a player's token, garbage, a huge one are all just a visitor.
    for (const authorization of [`Bearer ${machine.token}`, 'Bearer cp_player-token', 'Bearer not a token', `Bearer ${'x'.repeat(5000)}`, 'Basic YTpi']) {
      expect(await availability({ headers: { authorization } })).toEqual({ status: 200, cache: 'no-store', body: { machineOnline: true } });
    }
    for (const query of ['?machine=1', '?x=%00', `?${'a'.repeat(5000)}=1`, '?machineOnline=false&machineOnline=true']) {
      const response = await server.fetch(`/api/cloud-play/availability${query}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ machineOnline: true });
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const response = await server.fetch('/api/cloud-play/availability', { method, json: { machineOnline: false, capacity: 64 } });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
    }
    // Huge and deeply nested bodies, a NUL, wrong types: refused (4xx) or ignored, never a 5xx, nothing changed.
    const nested = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    for (const body of [nested, JSON.stringify({ machineOnline: 'x\u0000' }), JSON.stringify('x'.repeat(2 * 1024 * 1024)), '{"machineOnline": tru']) {
      for (const method of ['GET', 'POST']) {
        const response = await server.fetch('/api/cloud-play/availability', method === 'GET' ? { method } : { method, body, headers: { 'content-type': 'application/json' } });
        expect({ method, status: response.status < 500 }).toEqual({ method, status: true });
      }
      const trpc = await server.fetch(`/trpc/cloudPlay.availability?input=${encodeURIComponent(body.slice(0, 20_000))}`);
      expect(trpc.status).toBeLessThan(500);
      if (trpc.status === 200) expect(((await trpc.json()) as { result: { data: unknown } }).result.data).toEqual({ machineOnline: true });
      const asMutation = await server.fetch('/trpc/cloudPlay.availability', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      expect(asMutation.status).toBeGreaterThanOrEqual(400);
      expect(asMutation.status).toBeLessThan(500);
    }
    for (const query of [`?${'a['.repeat(2000)}=1`, '?machine=%00%01%1f', `?${Array.from({ length: 2000 }, (_, i) => `k${i}=v`).join('&')}`]) {
      const response = await server.fetch(`/api/cloud-play/availability${query}`);
      expect(response.status).toBeLessThan(500);
    }
    // It names no project, package or machine: no other project's id to try.
    expect(await availability()).toEqual({ status: 200, cache: 'no-store', body: { machineOnline: true } });
    expect(await server.trpc().cloudPlay.availability.query()).toEqual({ machineOnline: true });
    expect(await server.trpc('cp_not-a-user').cloudPlay.availability.query()).toEqual({ machineOnline: true });
    expect(await server.trpc(machine.token).cloudPlay.availability.query()).toEqual({ machineOnline: true });
  });
});
