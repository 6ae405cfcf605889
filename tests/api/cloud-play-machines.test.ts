import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { eq, inArray } from 'drizzle-orm';
import { bootDeps, closeDeps } from '../../src/server/boot.ts';
import { loadConfig } from '../../src/server/config.ts';
import { channelSubscriberCount } from '../../src/server/db/notify.ts';
import { cloudSessions } from '../../src/server/db/schema/index.ts';
import { cloudPlayChannel } from '../../src/server/domains/cloud-play/session-rows.ts';
import { startServer } from '../../src/server/serve.ts';
import type { CreatedCloudSession, MachineWork } from '../../src/shared/schemas/cloud-play.ts';
import { type TestUser } from '../support/accounts.ts';
import { createCloudAgentClient, offerText, type CloudAgentClient } from '../support/cloud-agent-client.ts';
import { type TestProject } from '../support/projects.ts';
import { secondProcessEnv, type TestServer } from '../support/server.ts';
import { addMachine, createSession, fullMachine, newCloudPlayer, player, resetCloudPlay, startCloudPlayWorld, uploadLinuxGame, waitForStatus } from './cloud-play-support.ts';

/**
 * Cloud play, the machine's side: the provide protocol spoken by a scripted agent. Authentication,
 * reports only for the machine's own sessions, capacity, assignment exactly once under concurrent
 * inits and provides (and across two server processes on one PostgreSQL), the long poll woken at once
 * by NOTIFY, and revocation.
 */
const heartbeatSeconds = 3;

/**
 * Calls a provide call and waits until it is held (it listens for wake-ups on the database's
 * cloud-play channel: one listener more than before), instead of guessing how long that takes.
 */
async function heldCall<T>(database: Parameters<typeof channelSubscriberCount>[0], call: () => Promise<T>): Promise<{ reply: Promise<T> }> {
  const before = channelSubscriberCount(database, cloudPlayChannel);
  const held = call();
  const deadline = Date.now() + 30_000;
  while (channelSubscriberCount(database, cloudPlayChannel) <= before) {
    if (Date.now() > deadline) throw new Error('the provide call was never held');
    await Bun.sleep(10);
  }
  return { reply: held };
}
let server: TestServer;
let admin: TestUser;
let project: TestProject;
let game: string;

beforeAll(async () => {
  ({ server, admin, project, game } = await startCloudPlayWorld({ CLOUD_PLAY_HEARTBEAT_SECONDS: String(heartbeatSeconds), CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS: '10', CLOUD_PLAY_INIT_HOLD_SECONDS: '0' }));
}, 60_000);
afterAll(() => server.stop());
afterEach(() => resetCloudPlay(server));

const newPlayer = () => newCloudPlayer(server, project);

async function sessionRow(id: string) {
  const [row] = await server.deps.db.select().from(cloudSessions).where(eq(cloudSessions.id, id));
  return row!;
}

const sessionsOf = (work: MachineWork[], kind: MachineWork['kind']) => work.filter((item) => item.kind === kind).map((item) => item.session);

/** A session brought to 'offered' on the agent's machine (online first: a session needs a machine online). */
async function offeredSession(agent: CloudAgentClient): Promise<CreatedCloudSession> {
  await agent.provide();
  const created = await createSession(server, await newPlayer(), project.id, game);
  expect(sessionsOf(await agent.provideUntilWork(), 'start')).toContain(created.session);
  agent.report(created.session, 'offered', { offer: offerText(created.session) });
  await agent.provide();
  return created;
}

describe('agent authentication', () => {
  test('no token, a user token, a player token, an unknown or revoked machine token: wrong_auth (401)', async () => {
    const agent = await addMachine(server, admin);
    expect((await agent.provideRaw()).status).toBe(200);
    const created = await createSession(server, await newPlayer(), project.id, game);
    for (const token of [null, admin.token, created.token, 'cm_unknown', 'Basic abc']) {
      const response = await agent.provideRaw({ token });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: 'wrong_auth', details: { reason: 'machine_token' } });
    }
    const basic = await fetch(`${server.url}/api/cloud-play/machine/provide`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${btoa(`x:${agent.token}`)}` },
      body: JSON.stringify({ capacity: 1, agentVersion: 'x', sessions: [] }),
    });
    expect(basic.status).toBe(401);
    expect((await agent.provideRaw()).status).toBe(200);
    // A bad body is bad_param whoever sends it.
    expect((await agent.provideRaw({ body: { capacity: 65, agentVersion: 'x', sessions: [] } })).status).toBe(400);
    expect((await agent.provideRaw({ body: { capacity: 1, agentVersion: 'x', sessions: [{ session: 'a', state: 'dancing' }] } })).status).toBe(400);
  });

  test("another machine's session ids in reports are ignored", async () => {
    const owner = await addMachine(server, admin);
    const created = await offeredSession(owner);
    const intruder = await addMachine(server, admin);
    intruder.report(created.session, 'ended', { reason: 'hijacked' });
    expect((await intruder.provide()).work).toEqual([]);
    intruder.report(created.session, 'offered', { offer: offerText('intruder') });
    await intruder.provide();
    const row = await sessionRow(created.session);
    expect([row.status, row.reason, row.machineId, row.offer]).toEqual(['offered', null, owner.id, offerText(created.session)]);
    expect((await player(server, created.token).init()).body).toBe(offerText(created.session));
    // Nor does it get access to the package.
    expect((await intruder.access({ project: project.id, branch: '-', version: '-', package: game })).status).toBe(404);
  });
});

describe('sessions that no longer exist', () => {
  test('a session deleted with its package is stopped on the agent (reason not_found); made-up ids too', async () => {
    const agent = await addMachine(server, admin, { capacity: 2 });
    const doomed = (await uploadLinuxGame(server, admin, project.id)).id;
    await agent.provide();
    const created = await createSession(server, await newPlayer(), project.id, doomed);
    expect(sessionsOf(await agent.provideUntilWork(), 'start')).toEqual([created.session]);
    agent.report(created.session, 'playing');
    agent.report('made-up-session', 'preparing');
    await agent.provide();
    const deleted = await server.fetch(`/api/projects/${project.id}/packages/${doomed}`, { method: 'DELETE', token: admin.token });
    expect(deleted.status).toBe(200);
    expect((await agent.provide()).work).toEqual([
      { kind: 'stop', session: created.session, reason: 'not_found' },
      { kind: 'stop', session: 'made-up-session', reason: 'not_found' },
    ]);
    agent.report(created.session, 'ended', { reason: 'stopped' });
    agent.report('made-up-session', 'ended');
    expect((await agent.provide()).work).toEqual([]);
    expect((await player(server, created.token).state()).status).toBe(404);
  });
});

describe('the provide body', () => {
  test('offers of every session fit (up to 5 MiB); more is 413 limit_exceeded', async () => {
    const agent = await addMachine(server, admin);
    const offer = JSON.stringify({ type: 'offer', sdp: 'v'.repeat(60_000) });
    const sessions = Array.from({ length: 40 }, (_, index) => ({ session: `s${index}`, state: 'ended', offer }));
    const large = await agent.provideRaw({ body: { capacity: 1, agentVersion: 'x', sessions, wait: false } });
    expect(large.status).toBe(200);
    const huge = await agent.provideRaw({ body: { capacity: 1, agentVersion: 'x', sessions, wait: false, padding: 'x'.repeat(5 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
    expect((await huge.json()).code).toBe('limit_exceeded');
  });
});

describe('capacity', () => {
  test('a machine takes at most its capacity; a freed slot goes to the oldest waiting session; capacity 0 takes none', async () => {
    // Another machine is online (so sessions may be created) but full: they wait.
    await fullMachine(server, admin, await newPlayer(), project.id, game);
    const agent = await addMachine(server, admin, { capacity: 0 });
    await agent.provide();
    const sessions: CreatedCloudSession[] = [];
    for (let i = 0; i < 3; i++) sessions.push(await createSession(server, await newPlayer(), project.id, game));
    expect((await agent.provide()).work).toEqual([]);
    expect((await player(server, sessions[0]!.token).state()).body.status).toBe('waiting');

    agent.capacity = 2;
    const work = await agent.provide();
    expect(sessionsOf(work.work, 'start')).toEqual([sessions[0]!.session, sessions[1]!.session]);
    for (const session of sessions.slice(0, 2)) agent.report(session.session, 'preparing');
    expect((await agent.provide()).work).toEqual([]);
    expect((await player(server, sessions[2]!.token).init()).body).toMatchObject({ code: 'timeout', details: { status: 'waiting' } });

    await player(server, sessions[0]!.token).stop();
    const next = (await agent.provide()).work;
    expect(next.map((item) => [item.kind, item.session])).toEqual([
      ['stop', sessions[0]!.session],
      ['start', sessions[2]!.session],
    ]);
    const listed = (await server.trpc(admin.token).admin.cloudMachines.list.query()).find((machine) => machine.id === agent.id);
    expect(listed).toMatchObject({ capacity: 2, liveSessions: 2, agentVersion: 'test-agent/1' });
  });
});

describe('assignment exactly once', () => {
  test('concurrent inits and provides of several machines: each session goes to one machine, no machine over capacity', async () => {
    const agents = await Promise.all([1, 2, 3].map(() => addMachine(server, admin, { capacity: 2 })));
    const players = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(() => newPlayer()));
    // None of these machines is live yet (only another, full one): every session waits.
    await fullMachine(server, admin, await newPlayer(), project.id, game);
    const sessions = await Promise.all(players.map((user) => createSession(server, user, project.id, game)));
    const startsBy = new Map<string, string[]>();
    const provideRounds = agents.map(async (agent) => {
      for (let round = 0; round < 4; round++) {
        const { work } = await agent.provide();
        for (const session of sessionsOf(work, 'start')) {
          startsBy.set(session, [...(startsBy.get(session) ?? []), agent.id]);
          agent.report(session, 'preparing');
        }
      }
    });
    const initRounds = sessions.map(async (session) => {
      for (let round = 0; round < 4; round++) await player(server, session.token).init();
    });
    await Promise.all([...provideRounds, ...initRounds]);
    // Whatever the interleaving, a last round hands over what is left.
    for (const agent of agents) {
      for (const session of sessionsOf((await agent.provide()).work, 'start')) {
        startsBy.set(session, [...(startsBy.get(session) ?? []), agent.id]);
        agent.report(session, 'preparing');
      }
    }

    const rows = await server.deps.db.select().from(cloudSessions).where(inArray(cloudSessions.id, sessions.map((session) => session.session)));
    const assigned = rows.filter((row) => row.status === 'assigned');
    expect(assigned).toHaveLength(6);
    expect(rows.filter((row) => row.status === 'waiting')).toHaveLength(2);
    for (const agent of agents) expect(assigned.filter((row) => row.machineId === agent.id)).toHaveLength(2);
    // Each assigned session was started on its machine, once; no waiting session was started anywhere.
    for (const row of assigned) expect(startsBy.get(row.id)).toEqual([row.machineId!]);
    expect([...startsBy.keys()].sort()).toEqual(assigned.map((row) => row.id).sort());
  });
});

describe('the long poll', () => {
  test('held with nothing to do, it answers no work after the heartbeat', async () => {
    const agent = await addMachine(server, admin);
    const started = performance.now();
    const reply = await agent.provide({ wait: true });
    const elapsed = performance.now() - started;
    expect(reply).toEqual({ work: [], heartbeatMs: heartbeatSeconds * 1000 });
    expect(elapsed).toBeGreaterThanOrEqual(heartbeatSeconds * 1000 - 50);
    expect(elapsed).toBeLessThan(heartbeatSeconds * 1000 + 1500);
  });

  test('wakes at once on an answer, a new session and a stop', async () => {
    const agent = await addMachine(server, admin, { capacity: 2 });
    const created = await offeredSession(agent);

    const timed = async (act: () => Promise<unknown>) => {
      const { reply: held } = await heldCall(server.deps.database, () => agent.provide({ wait: true }));
      const acted = performance.now();
      await act();
      const reply = await held;
      return { work: reply.work, ms: performance.now() - acted };
    };

    const answered = await timed(() => player(server, created.token).connect('v=0 woken'));
    expect(answered.work).toEqual([{ kind: 'answer', session: created.session, sdp: 'v=0 woken' }]);
    expect(answered.ms).toBeLessThan(1000);
    agent.report(created.session, 'playing');

    let second: CreatedCloudSession | undefined;
    const newcomer = await newPlayer();
    const started = await timed(async () => (second = await createSession(server, newcomer, project.id, game)));
    expect(started.work.map((item) => [item.kind, item.session])).toEqual([['start', second!.session]]);
    expect(started.ms).toBeLessThan(1000);
    agent.report(second!.session, 'preparing');

    const stopped = await timed(() => player(server, created.token).stop());
    expect(stopped.work).toEqual([{ kind: 'stop', session: created.session, reason: 'stopped' }]);
    expect(stopped.ms).toBeLessThan(1000);
  });

  test('a held call the agent abandons stops listening', async () => {
    const agent = await addMachine(server, admin);
    const before = channelSubscriberCount(server.deps.database, cloudPlayChannel);
    const controller = new AbortController();
    const { reply: held } = await heldCall(server.deps.database, () => agent.provide({ wait: true, signal: controller.signal }).catch((error: unknown) => error));
    expect(channelSubscriberCount(server.deps.database, cloudPlayChannel)).toBe(before + 1);
    controller.abort();
    await held;
    const deadline = Date.now() + 2000;
    while (channelSubscriberCount(server.deps.database, cloudPlayChannel) > before && Date.now() < deadline) await Bun.sleep(20);
    expect(channelSubscriberCount(server.deps.database, cloudPlayChannel)).toBe(before);
  });
});

describe('revocation', () => {
  test("the agent's held call and its next call are wrong_auth; its sessions end (machine_revoked); others take the players", async () => {
    const agent = await addMachine(server, admin, { capacity: 2 });
    const created = await offeredSession(agent);
    const { reply: held } = await heldCall(server.deps.database, () => agent.provideRaw({ wait: true }));
    const revoked = performance.now();
    await server.trpc(admin.token).admin.cloudMachines.revoke.mutate({ machine: agent.id });
    const answer = await held;
    expect(performance.now() - revoked).toBeLessThan(1000);
    expect(answer.status).toBe(401);
    expect((await answer.json()).code).toBe('wrong_auth');
    expect((await agent.provideRaw()).status).toBe(401);
    expect((await agent.access({ project: project.id, branch: '-', version: '-', package: game })).status).toBe(401);
    expect((await player(server, created.token).state()).body).toEqual({ status: 'errored', reason: 'machine_revoked' });
    const listed = (await server.trpc(admin.token).admin.cloudMachines.list.query()).find((machine) => machine.id === agent.id);
    expect(listed).toMatchObject({ revoked: true, liveSessions: 0 });

    // A new session of the same player goes to a machine still in service.
    const other = await addMachine(server, admin);
    await other.provide();
    const user = await newPlayer();
    const next = await createSession(server, user, project.id, game);
    expect(sessionsOf(await other.provideUntilWork(), 'start')).toEqual([next.session]);
    expect((await waitForStatus(server, next.token, ['assigned'])).status).toBe('assigned');
  });
});

// Two server processes on one PostgreSQL (the second as store-cache.test.ts starts one: its own deps,
// connection pool and LISTEN connection): wake-ups and claims cross processes.
if (process.env.DATABASE_URL) describe('two processes on one PostgreSQL database', () => {
  test("a long poll held by one process wakes when the player connects through the other; claims stay exactly once", async () => {
    const other = await bootDeps(
      loadConfig(secondProcessEnv(server, { CLOUD_PLAY_HEARTBEAT_SECONDS: String(heartbeatSeconds), CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS: '10' })),
    );
    const otherServer = startServer(other, { port: 0, hostname: '127.0.0.1' });
    try {
      const here = await addMachine(server, admin, { capacity: 3 });
      const there = createCloudAgentClient(otherServer.url, (await server.trpc(admin.token).admin.cloudMachines.create.mutate({ title: 'There' })).token, { capacity: 3 });
      await Promise.all([here.provide(), there.provide()]);

      // Sessions created on both processes, claimed by agents calling both processes at once.
      const users = await Promise.all([1, 2, 3, 4, 5, 6, 7].map(() => newPlayer()));
      const sessions = await Promise.all(
        users.map(async (user, index) => {
          const response = await fetch(`${index % 2 ? otherServer.url : server.url}/api/projects/${project.id}/packages/${game}/cloud-play`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` } });
          return (await response.json()) as CreatedCloudSession;
        }),
      );
      const startsBy = new Map<string, number>();
      await Promise.all(
        [here, there].map(async (agent) => {
          for (let round = 0; round < 4; round++) {
            for (const session of sessionsOf((await agent.provide()).work, 'start')) {
              startsBy.set(session, (startsBy.get(session) ?? 0) + 1);
              agent.report(session, 'preparing');
            }
          }
        }),
      );
      const rows = await server.deps.db.select().from(cloudSessions).where(inArray(cloudSessions.id, sessions.map((session) => session.session)));
      expect(rows.filter((row) => row.status === 'assigned')).toHaveLength(6);
      expect([...startsBy.values()]).toEqual([1, 1, 1, 1, 1, 1]);

      // A session of `there`, offered; its poll is held by the other process, the answer comes through this one.
      const mine = rows.find((row) => row.status === 'assigned' && startsBy.has(row.id) && there.reports.has(row.id))!;
      there.report(mine.id, 'offered', { offer: offerText('there') });
      await there.provide();
      const token = sessions.find((session) => session.session === mine.id)!.token;
      const { reply: held } = await heldCall(other.database, () => there.provide({ wait: true }));
      const connected = performance.now();
      expect((await player(server, token).connect('v=0 across')).status).toBe(200);
      expect((await held).work).toEqual([{ kind: 'answer', session: mine.id, sdp: 'v=0 across' }]);
      expect(performance.now() - connected).toBeLessThan(1000);
    } finally {
      await otherServer.stop();
      await closeDeps(other);
    }
  }, 30_000);
});
