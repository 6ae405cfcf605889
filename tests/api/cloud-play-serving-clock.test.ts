import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { eq, inArray, sql } from 'drizzle-orm';
import { bootDeps, closeDeps } from '../../src/server/boot.ts';
import { loadConfig } from '../../src/server/config.ts';
import type { Executor } from '../../src/server/db/client.ts';
import { cloudMachines, cloudSessions, instanceFacts } from '../../src/server/db/schema/index.ts';
import { recordServing, servingSinceSql } from '../../src/server/domains/cloud-play/serving-clock.ts';
import { startServer } from '../../src/server/serve.ts';
import type { CreatedCloudSession } from '../../src/shared/schemas/cloud-play.ts';
import { type TestUser } from '../support/accounts.ts';
import { offerText, type CloudAgentClient } from '../support/cloud-agent-client.ts';
import { type TestProject } from '../support/projects.ts';
import { secondProcessEnv, type TestServer } from '../support/server.ts';
import { addMachine, createSession, fullMachine, newCloudPlayer, player, resetCloudPlay, startCloudPlayWorld, waitForStatus } from './cloud-play-support.ts';

/**
 * Issue 27: the cloud-play sweep does not count the time no server process was serving. Every serving
 * process records that it is alive (instance_facts.alive_at) every servingBeatMs; after a pause of
 * those records longer than servingGapMs, serving_since moves to now, and machines and sessions are
 * judged from greatest(their last call, serving_since). Short settings here: machine timeout 1.5 s,
 * heartbeat 0.5 s, so a gap is a pause of over 1 s. A gap is made by moving the records back in time
 * in one transaction (the server itself keeps serving; tests/cloudhost/server-restart.test.ts kills
 * and restarts a real one).
 */
let server: TestServer;
let admin: TestUser;
let project: TestProject;
let game: string;

beforeAll(async () => {
  ({ server, admin, project, game } = await startCloudPlayWorld({
    CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS: '1.5',
    CLOUD_PLAY_HEARTBEAT_SECONDS: '0.5',
    CLOUD_PLAY_CONNECT_SECONDS: '2',
    CLOUD_PLAY_INIT_HOLD_SECONDS: '0',
    JOB_WORKERS: '0',
  }));
}, 60_000);
afterAll(() => server.stop());
afterEach(() => resetCloudPlay(server));

const newPlayer = () => newCloudPlayer(server, project);

async function facts(db: Executor = server.deps.db) {
  const [row] = await db
    .select({ aliveAt: instanceFacts.aliveAt, servingSince: instanceFacts.servingSince, ageMs: sql<number>`extract(epoch from now() - ${instanceFacts.servingSince}) * 1000` })
    .from(instanceFacts)
    .where(eq(instanceFacts.id, 1));
  return { ...row!, ageMs: Number(row!.ageMs) };
}

/** The rows of a raw query (postgres.js gives an array, PGlite an object with rows). */
async function rowsOf<T>(db: Executor, query: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** Runs fn in a transaction that is rolled back (the serving processes' records stay as they were). */
async function rolledBack(fn: (tx: Executor) => Promise<void>): Promise<void> {
  const rollback = new Error('rolled back');
  await server.deps.db
    .transaction(async (tx) => {
      await fn(tx);
      throw rollback;
    })
    .catch((error: unknown) => {
      if (error !== rollback) throw error;
    });
}

/** The instance's records as after every process was down for an hour, with these machines and sessions silent as long. */
async function downForAnHour(machines: string[], sessions: string[], also: (tx: Executor) => Promise<void> = async () => {}) {
  await server.deps.db.transaction(async (tx) => {
    await tx.update(instanceFacts).set({ aliveAt: sql`now() - interval '1 hour'`, servingSince: sql`now() - interval '1 day'` });
    if (machines.length > 0) await tx.update(cloudMachines).set({ lastSeenAt: sql`now() - interval '1 hour'` }).where(inArray(cloudMachines.id, machines));
    if (sessions.length > 0) await tx.update(cloudSessions).set({ heartbeatAt: sql`now() - interval '1 hour'` }).where(inArray(cloudSessions.id, sessions));
    await also(tx);
  });
}

async function playingSession(agent: CloudAgentClient): Promise<CreatedCloudSession> {
  await agent.provide();
  const created = await createSession(server, await newPlayer(), project.id, game);
  await agent.provideUntilWork();
  agent.report(created.session, 'offered', { offer: offerText(created.session) });
  await agent.provide();
  await player(server, created.token).connect();
  agent.report(created.session, 'playing');
  await agent.provide();
  expect((await player(server, created.token).state()).body.status).toBe('playing');
  return created;
}

describe('the serving clock', () => {
  test('every serving process records that it is alive; serving since stays put while it does', async () => {
    const first = await facts();
    expect(first.aliveAt).toBeInstanceOf(Date);
    expect(first.servingSince).toBeInstanceOf(Date);
    const deadline = Date.now() + 10_000;
    let later = first;
    while (later.aliveAt!.getTime() <= first.aliveAt!.getTime() && Date.now() < deadline) {
      await Bun.sleep(50);
      later = await facts();
    }
    expect(later.aliveAt!.getTime()).toBeGreaterThan(first.aliveAt!.getTime());
    expect(later.servingSince).toEqual(first.servingSince);
  });

  test('a record after a gap moves serving since to now (once); the sweep reads a gap no record has ended yet as over now', async () => {
    const { servingGapMs } = server.deps.config.cloudPlay;
    await rolledBack(async (tx) => {
      // Records within the gap: nothing moves; serving since as recorded.
      await tx.update(instanceFacts).set({ aliveAt: sql`now() - ${sql.raw(`interval '${Math.floor(servingGapMs / 2)} milliseconds'`)}`, servingSince: sql`now() - interval '1 day'` });
      expect(await recordServing(tx, servingGapMs)).toEqual({ resumed: false, first: false });
      expect((await facts(tx)).ageMs).toBeGreaterThan(23 * 3600_000);
      const [fresh] = await rowsOf<{ since: string; recorded: string }>(tx, sql`select ${servingSinceSql(servingGapMs)} as since, (select serving_since from instance_facts) as recorded`);
      expect(new Date(String(fresh!.since)).getTime()).toBe(new Date(String(fresh!.recorded)).getTime());

      // The last record an hour old: the sweep takes serving since as now, and the next record moves it there.
      await tx.update(instanceFacts).set({ aliveAt: sql`now() - interval '1 hour'` });
      const [stale] = await rowsOf<{ now: boolean }>(tx, sql`select ${servingSinceSql(servingGapMs)} = now() as now`);
      expect(stale!.now).toBe(true);
      expect(await recordServing(tx, servingGapMs)).toEqual({ resumed: true, first: false });
      expect((await facts(tx)).ageMs).toBeLessThan(1000);
      expect(await recordServing(tx, servingGapMs)).toEqual({ resumed: false, first: false });
    });
  });

  test('without a row (an instance never booted) there is no grace: silence counts as it is', async () => {
    await rolledBack(async (tx) => {
      await tx.delete(instanceFacts);
      expect(await recordServing(tx, 1000)).toBeUndefined();
      const [row] = await rowsOf<{ since: unknown }>(tx, sql`select ${servingSinceSql(1000)} as since`);
      expect(row!.since).toBeNull();
    });
  });
});

describe('the sweep after a gap', () => {
  test('machines and sessions are not held to the time no process served; once serving again, a silent machine is lost after the timeout', async () => {
    const agent = await addMachine(server, admin, { capacity: 2 });
    const created = await playingSession(agent);
    await downForAnHour([agent.id], [created.session]);
    // The first calls after the gap: the machine had no chance to call, its session plays on.
    expect((await player(server, created.token).state()).body).toEqual({ status: 'playing', reason: null });
    const deadline = Date.now() + 10_000;
    while ((await facts()).ageMs > 5000 && Date.now() < deadline) await Bun.sleep(50);
    expect((await facts()).ageMs).toBeLessThan(5000);
    // The grace is the machine timeout from the resumption, not more: the machine stays silent.
    expect(await waitForStatus(server, created.token, ['errored'], 15_000)).toEqual({ status: 'errored', reason: 'machine_lost' });
  });

  test('an agent back within the machine timeout of the resumption keeps its sessions', async () => {
    const agent = await addMachine(server, admin, { capacity: 2 });
    const created = await playingSession(agent);
    await downForAnHour([agent.id], [created.session]);
    expect((await agent.provide()).work).toEqual([]);
    expect((await player(server, created.token).state()).body).toEqual({ status: 'playing', reason: null });
  });

  test('without a gap (the instance served all along), a silent machine is lost at once, as before', async () => {
    const agent = await addMachine(server, admin, { capacity: 2 });
    const created = await playingSession(agent);
    await server.deps.db.transaction(async (tx) => {
      // Recorded just now, serving for a day.
      await tx.update(instanceFacts).set({ aliveAt: sql`now()`, servingSince: sql`now() - interval '1 day'` });
      await tx.update(cloudMachines).set({ lastSeenAt: sql`now() - interval '1 hour'` }).where(eq(cloudMachines.id, agent.id));
      await tx.update(cloudSessions).set({ heartbeatAt: sql`now() - interval '1 hour'` }).where(eq(cloudSessions.id, created.session));
    });
    expect((await player(server, created.token).state()).body).toEqual({ status: 'errored', reason: 'machine_lost' });
    expect((await agent.provide()).work).toEqual([{ kind: 'stop', session: created.session, reason: 'machine_lost' }]);
  });

  test('the waits for a machine and for the player get the gap back too; the time limit does not', async () => {
    const agent = await addMachine(server, admin, { capacity: 2 });
    const playing = await playingSession(agent);
    const offered = await createSession(server, await newPlayer(), project.id, game);
    await agent.provideUntilWork();
    agent.report(offered.session, 'offered', { offer: offerText(offered.session) });
    await agent.provide();
    // The machine is full now: the next session waits.
    const waiting = await createSession(server, await newPlayer(), project.id, game);
    expect((await player(server, waiting.token).state()).body.status).toBe('waiting');

    await downForAnHour([agent.id], [playing.session, offered.session], async (tx) => {
      // Half an hour: far past CLOUD_PLAY_CONNECT_SECONDS, within CLOUD_PLAY_MAX_SECONDS (an hour).
      await tx.update(cloudSessions).set({ createdAt: sql`now() - interval '30 minutes'` }).where(eq(cloudSessions.id, waiting.session));
      await tx.update(cloudSessions).set({ offeredAt: sql`now() - interval '1 hour'` }).where(eq(cloudSessions.id, offered.session));
      await tx.update(cloudSessions).set({ createdAt: sql`now() - interval '2 hours'` }).where(eq(cloudSessions.id, playing.session));
    });
    expect((await player(server, waiting.token).state()).body).toEqual({ status: 'waiting', reason: null });
    expect((await player(server, offered.token).state()).body).toEqual({ status: 'offered', reason: null });
    expect((await player(server, playing.token).state()).body).toEqual({ status: 'ended', reason: 'time_limit' });
    // Their own deadlines still come, counted from the resumption (CLOUD_PLAY_CONNECT_SECONDS: 2 s).
    expect(await waitForStatus(server, waiting.token, ['errored'], 15_000)).toEqual({ status: 'errored', reason: 'no_machine' });
    expect(await waitForStatus(server, offered.token, ['errored'], 15_000)).toMatchObject({ status: 'errored' });
  });

  test('a session waiting for a machine needs one online to be made, then gets the gap back like the others', async () => {
    await fullMachine(server, admin, await newPlayer(), project.id, game);
    const waiting = await createSession(server, await newPlayer(), project.id, game);
    await downForAnHour([], [], async (tx) => {
      await tx.update(cloudSessions).set({ createdAt: sql`now() - interval '30 minutes'` }).where(eq(cloudSessions.id, waiting.session));
    });
    expect((await player(server, waiting.token).state()).body).toEqual({ status: 'waiting', reason: null });
  });
});

// Several processes on one PostgreSQL database: a process that starts or stops while another serves is no gap.
if (process.env.DATABASE_URL) describe('two processes on one PostgreSQL database', () => {
  test('a process starting and stopping while another serves moves nothing (no grace in a rolling restart); concurrent records after a gap agree', async () => {
    // This process records first (the gaps the tests above made are over).
    await recordServing(server.deps.db, server.deps.config.cloudPlay.servingGapMs);
    const before = await facts();
    const otherConfig = loadConfig(secondProcessEnv(server, { CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS: '1.5', CLOUD_PLAY_HEARTBEAT_SECONDS: '0.5' }));
    const lines: string[] = [];
    const log = { info: (message: string) => void lines.push(message), error: (message: string) => void lines.push(message), debug: () => {} };
    const other = await bootDeps(otherConfig, { log });
    try {
      expect(await recordServing(other.db, otherConfig.cloudPlay.servingGapMs)).toEqual({ resumed: false, first: false });
      const otherServer = startServer(other, { port: 0, hostname: '127.0.0.1' });
      // Several of its records (every 250 ms) while this process serves too, then it stops.
      const started = (await facts()).aliveAt!.getTime();
      const deadline = Date.now() + 10_000;
      while ((await facts()).aliveAt!.getTime() < started + 4 * otherConfig.cloudPlay.servingBeatMs && Date.now() < deadline) await Bun.sleep(50);
      await otherServer.stop();
      expect(lines.filter((line) => line.startsWith('serving after a gap'))).toEqual([]);
      // This one serves on past a gap's length: still no gap.
      await Bun.sleep(otherConfig.cloudPlay.servingGapMs + 500);
      expect((await facts()).servingSince).toEqual(before.servingSince);

      // After a gap, both processes record at once: serving since moves once, every call answers.
      await server.deps.db.update(instanceFacts).set({ aliveAt: sql`now() - interval '1 hour'` });
      const records = await Promise.all(Array.from({ length: 8 }, (_, index) => recordServing(index % 2 ? other.db : server.deps.db, otherConfig.cloudPlay.servingGapMs)));
      expect(records.filter((record) => record?.resumed).length).toBeGreaterThanOrEqual(1);
      const after = await facts();
      expect(after.ageMs).toBeLessThan(5000);
      await Bun.sleep(otherConfig.cloudPlay.servingBeatMs * 3);
      expect((await facts()).servingSince).toEqual(after.servingSince);
    } finally {
      await closeDeps(other);
    }
  }, 30_000);
});
