import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { cloudMachines, cloudSessions, instanceFacts, jobs } from '../../src/server/db/schema/index.ts';
import { cloudPlaySweepJob } from '../../src/server/domains/cloud-play/cloud-play-sweep.job.ts';
import { serverJobs } from '../../src/server/jobs-list.ts';
import type { CreatedCloudSession } from '../../src/shared/schemas/cloud-play.ts';
import { type TestUser } from '../support/accounts.ts';
import { offerText, type CloudAgentClient } from '../support/cloud-agent-client.ts';
import { type TestProject } from '../support/projects.ts';
import { type TestServer } from '../support/server.ts';
import { addMachine, createSession, fullMachine, newCloudPlayer, player, resetCloudPlay, startCloudPlayWorld } from './cloud-play-support.ts';
import { directJobContext } from '../support/job-context.ts';

/**
 * Cloud play's deadlines (CONNECT 60 s, MACHINE_TIMEOUT 60 s, HEARTBEAT 20 s): a machine that stops
 * calling is lost (its sessions end machine_lost, the player sees it, the machine is freed), an offer
 * nobody answers ends not_connected, a session no machine takes ends no_machine, the time limit, the
 * agent's own endings, lost replies handed again, and the periodic sweep. The deadlines are long, so a
 * busy machine never passes one by accident between two calls; a test makes time pass for the one it
 * means by moving that moment back in the database (elapse()), whose clock every deadline is read by.
 */
const connectSeconds = 60;
const machineTimeoutSeconds = 60;
const heartbeatSeconds = 20;
let server: TestServer;
let admin: TestUser;
let project: TestProject;
let game: string;

beforeAll(async () => {
  ({ server, admin, project, game } = await startCloudPlayWorld({
    CLOUD_PLAY_CONNECT_SECONDS: String(connectSeconds),
    CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS: String(machineTimeoutSeconds),
    CLOUD_PLAY_HEARTBEAT_SECONDS: String(heartbeatSeconds),
    // Inits answer at once here (their hold has its own file: cloud-play-init-hold.test.ts).
    CLOUD_PLAY_INIT_HOLD_SECONDS: '0',
    // The periodic sweep is run by hand here (its own test).
    JOB_WORKERS: '0',
  }));
}, 60_000);
afterAll(() => server.stop());
afterEach(() => resetCloudPlay(server));

const newPlayer = () => newCloudPlayer(server, project);

/**
 * `seconds` pass for the given moments of one row (a session's or a machine's), by the database clock:
 * they are moved back. The serving clock's "serving since" goes back further, as on an instance that
 * served throughout (the sweep counts no wait from before it: serving-clock.ts).
 */
async function elapse(seconds: number, row: { session: string; columns: AnyPgColumn[] } | { machine: string }): Promise<void> {
  const back = (column: AnyPgColumn) => sql`${column} - ${`${seconds} seconds`}::interval`;
  await server.deps.db.update(instanceFacts).set({ servingSince: sql`now() - interval '1 day'` });
  if ('machine' in row) {
    await server.deps.db.update(cloudMachines).set({ lastSeenAt: back(cloudMachines.lastSeenAt) }).where(eq(cloudMachines.id, row.machine));
    return;
  }
  const set = Object.fromEntries(row.columns.map((column) => [Object.entries(cloudSessions).find(([, value]) => value === column)![0], back(column)]));
  await server.deps.db.update(cloudSessions).set(set).where(eq(cloudSessions.id, row.session));
}

async function sessionOn(agent: CloudAgentClient, state: 'preparing' | 'offered' | 'playing'): Promise<CreatedCloudSession> {
  // A session needs a machine online.
  await agent.provide();
  const created = await createSession(server, await newPlayer(), project.id, game);
  expect((await agent.provideUntilWork()).map((item) => [item.kind, item.session])).toContainEqual(['start', created.session]);
  agent.report(created.session, state === 'preparing' ? 'preparing' : 'offered', state === 'preparing' ? {} : { offer: offerText(created.session) });
  await agent.provide();
  if (state === 'playing') {
    await player(server, created.token).connect();
    agent.report(created.session, 'playing');
    await agent.provide();
    expect((await player(server, created.token).state()).body.status).toBe('playing');
  }
  return created;
}

describe('a machine that stops calling', () => {
  test('is lost mid-session: the session ends machine_lost, the player sees it, the machine is freed', async () => {
    const agent = await addMachine(server, admin, { capacity: 1 });
    const created = await sessionOn(agent, 'playing');
    // Silence past CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS: the player's next call says so.
    await elapse(machineTimeoutSeconds + 1, { machine: agent.id });
    expect((await player(server, created.token).state()).body).toEqual({ status: 'errored', reason: 'machine_lost' });
    expect((await player(server, created.token).init()).body).toMatchObject({ code: 'not_found', details: { reason: 'machine_lost' } });
    const listed = (await server.trpc(admin.token).admin.cloudMachines.list.query()).find((machine) => machine.id === agent.id);
    expect(listed?.liveSessions).toBe(0);

    // Back again: it hears the stop of what it still holds, and its slot takes a new player at once.
    const back = await agent.provide();
    expect(back.work).toEqual([{ kind: 'stop', session: created.session, reason: 'machine_lost' }]);
    const next = await createSession(server, await newPlayer(), project.id, game);
    const work = { work: [...back.work, ...(await agent.provide()).work] };
    expect(work.work.map((item) => [item.kind, item.session])).toEqual([
      ['stop', created.session],
      ['start', next.session],
    ]);
    expect(work.work[0]).toMatchObject({ reason: 'machine_lost' });
  });

  test('a live machine that stops reporting a session (an agent restarted) loses that session only', async () => {
    const agent = await addMachine(server, admin, { capacity: 2 });
    const kept = await sessionOn(agent, 'preparing');
    const forgotten = await sessionOn(agent, 'preparing');
    agent.report(forgotten.session, undefined);
    await agent.provide(); // reports the kept one only
    // A machine timeout without a report of the forgotten one, while the kept one is reported on each call.
    await elapse(machineTimeoutSeconds + 1, { session: forgotten.session, columns: [cloudSessions.heartbeatAt, cloudSessions.startSentAt, cloudSessions.assignedAt] });
    await agent.provide();
    expect((await player(server, forgotten.token).state()).body).toEqual({ status: 'errored', reason: 'machine_lost' });
    expect((await player(server, kept.token).state()).body).toEqual({ status: 'assigned', reason: null });
  });
});

describe('connecting in time', () => {
  test('an offer nobody answers ends not_connected; the agent hears the stop', async () => {
    const agent = await addMachine(server, admin);
    const created = await sessionOn(agent, 'offered');
    await elapse(connectSeconds + 1, { session: created.session, columns: [cloudSessions.offeredAt] });
    const work = (await agent.provide()).work;
    expect((await player(server, created.token).state()).body).toEqual({ status: 'errored', reason: 'not_connected' });
    expect(work).toContainEqual({ kind: 'stop', session: created.session, reason: 'not_connected' });
    expect((await player(server, created.token).connect()).body).toMatchObject({ code: 'not_found', details: { reason: 'not_connected' } });
  });

  test('an answer that never leads to playing ends not_connected too', async () => {
    const agent = await addMachine(server, admin);
    const created = await sessionOn(agent, 'offered');
    expect((await player(server, created.token).connect()).status).toBe(200);
    expect((await agent.provide()).work.map((item) => item.kind)).toEqual(['answer']);
    agent.report(created.session, 'connecting');
    await agent.provide();
    await elapse(connectSeconds + 1, { session: created.session, columns: [cloudSessions.answeredAt] });
    const work = (await agent.provide()).work;
    expect(work).toEqual([{ kind: 'stop', session: created.session, reason: 'not_connected' }]);
    expect((await player(server, created.token).state()).body).toEqual({ status: 'errored', reason: 'not_connected' });
  });

  test('a session no machine takes ends no_machine', async () => {
    // The only machine online is full: nothing takes the new session.
    await fullMachine(server, admin, await newPlayer(), project.id, game);
    const created = await createSession(server, await newPlayer(), project.id, game);
    expect((await player(server, created.token).init()).status).toBe(503);
    expect((await player(server, created.token).state()).body).toEqual({ status: 'waiting', reason: null });
    await elapse(connectSeconds + 1, { session: created.session, columns: [cloudSessions.createdAt] });
    expect((await player(server, created.token).state()).body).toEqual({ status: 'errored', reason: 'no_machine' });
  });

  test('a session past CLOUD_PLAY_MAX_SECONDS ends time_limit', async () => {
    const agent = await addMachine(server, admin);
    const created = await sessionOn(agent, 'playing');
    await server.deps.db
      .update(cloudSessions)
      .set({ createdAt: sql`now() - interval '2 hours'` })
      .where(eq(cloudSessions.id, created.session));
    expect((await player(server, created.token).state()).body).toEqual({ status: 'ended', reason: 'time_limit' });
    expect((await agent.provide()).work).toEqual([{ kind: 'stop', session: created.session, reason: 'time_limit' }]);
  });
});

describe("the agent's reports", () => {
  test('it ends sessions with its reason (one line), and is not told to stop them', async () => {
    const agent = await addMachine(server, admin, { capacity: 2 });
    const exited = await sessionOn(agent, 'playing');
    const failed = await sessionOn(agent, 'preparing');
    agent.report(exited.session, 'ended', { reason: 'game_exited' });
    agent.report(failed.session, 'errored', { reason: 'download failed:\n\u001b[31m404\u0000 ' });
    expect((await agent.provide()).work).toEqual([]);
    expect((await player(server, exited.token).state()).body).toEqual({ status: 'ended', reason: 'game_exited' });
    expect((await player(server, failed.token).state()).body).toEqual({ status: 'errored', reason: 'download failed: [31m404' });
    // Reports of an ended session change nothing.
    agent.report(exited.session, 'playing');
    await agent.provide();
    expect((await player(server, exited.token).state()).body.status).toBe('ended');
  });

  test('an offer that is not {type:offer, sdp} JSON ends the session bad_offer', async () => {
    const agent = await addMachine(server, admin);
    await agent.provide();
    const created = await createSession(server, await newPlayer(), project.id, game);
    await agent.provideUntilWork();
    agent.report(created.session, 'offered', { offer: 'v=0 not json' });
    expect((await agent.provide()).work).toEqual([{ kind: 'stop', session: created.session, reason: 'bad_offer' }]);
    expect((await player(server, created.token).state()).body).toEqual({ status: 'errored', reason: 'bad_offer' });
  });

  test('a start or an answer the agent did not act on (a lost reply) is handed again after a heartbeat', async () => {
    const agent = await addMachine(server, admin);
    await agent.provide();
    const created = await createSession(server, await newPlayer(), project.id, game);
    expect((await agent.provideUntilWork()).map((item) => item.kind)).toEqual(['start']);
    expect((await agent.provide()).work).toEqual([]); // not again within the heartbeat
    await elapse(heartbeatSeconds + 1, { session: created.session, columns: [cloudSessions.startSentAt] });
    expect((await agent.provide()).work.map((item) => [item.kind, item.session])).toEqual([['start', created.session]]);

    agent.report(created.session, 'offered', { offer: offerText() });
    await agent.provide();
    await player(server, created.token).connect('v=0 again');
    expect((await agent.provide()).work).toEqual([{ kind: 'answer', session: created.session, sdp: 'v=0 again' }]);
    expect((await agent.provide()).work).toEqual([]);
    await elapse(heartbeatSeconds + 1, { session: created.session, columns: [cloudSessions.answerSentAt] });
    expect((await agent.provide()).work).toEqual([{ kind: 'answer', session: created.session, sdp: 'v=0 again' }]);
    agent.report(created.session, 'connecting');
    expect((await agent.provide()).work).toEqual([]);
    await elapse(heartbeatSeconds + 1, { session: created.session, columns: [cloudSessions.answerSentAt] });
    // Acted on: never handed again.
    expect((await agent.provide()).work).toEqual([]);
  });
});

describe('the periodic sweep', () => {
  test('is a listed periodic job and ends overdue sessions with no call at all', async () => {
    expect(serverJobs).toContain(cloudPlaySweepJob);
    expect(cloudPlaySweepJob.everyMs).toBe(30_000);
    await fullMachine(server, admin, await newPlayer(), project.id, game);
    const created = await createSession(server, await newPlayer(), project.id, game);
    await elapse(connectSeconds + 1, { session: created.session, columns: [cloudSessions.createdAt] });
    const [before] = await server.deps.db.select().from(cloudSessions).where(eq(cloudSessions.id, created.session));
    expect(before?.status).toBe('waiting');
    await cloudPlaySweepJob.schedule(server.deps.db, 0);
    const [job] = await server.deps.db.select().from(jobs).where(eq(jobs.kind, cloudPlaySweepJob.kind));
    const output = await cloudPlaySweepJob.execute(server.deps, job as never, directJobContext());
    expect(output.cloudSessionsEnded).toBeGreaterThanOrEqual(1);
    const [after] = await server.deps.db.select().from(cloudSessions).where(eq(cloudSessions.id, created.session));
    expect([after?.status, after?.reason]).toEqual(['errored', 'no_machine']);
  });

  test('forgets sessions that ended over a week ago', async () => {
    await (await addMachine(server, admin)).provide();
    const created = await createSession(server, await newPlayer(), project.id, game);
    await player(server, created.token).stop();
    await server.deps.db
      .update(cloudSessions)
      .set({ endedAt: sql`now() - interval '8 days'` })
      .where(eq(cloudSessions.id, created.session));
    const [job] = await server.deps.db.select().from(jobs).where(eq(jobs.kind, cloudPlaySweepJob.kind));
    const output = await cloudPlaySweepJob.execute(server.deps, job as never, directJobContext());
    expect(output.cloudSessionsForgotten).toBeGreaterThanOrEqual(1);
    expect((await player(server, created.token).state()).status).toBe(404);
  });
});
