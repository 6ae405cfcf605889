import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { bootDeps, closeDeps } from '../../src/server/boot.ts';
import { loadConfig } from '../../src/server/config.ts';
import { channelSubscriberCount } from '../../src/server/db/notify.ts';
import { cloudMachines } from '../../src/server/db/schema/index.ts';
import { cloudSessionChannel } from '../../src/server/domains/cloud-play/session-rows.ts';
import { startServer } from '../../src/server/serve.ts';
import type { CreatedCloudSession, MachineWork } from '../../src/shared/schemas/cloud-play.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createCloudAgentClient, offerText, type CloudAgentClient } from '../support/cloud-agent-client.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { secondProcessEnv, startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailureStatus } from '../support/trpc-failure.ts';
import { addMachine, createSession, fullMachine, newCloudPlayer, player, resetCloudPlay, startCloudPlayWorld, uploadLinuxGame } from './cloud-play-support.ts';

/**
 * Issue 27: session init is held on the server (CLOUD_PLAY_INIT_HOLD_SECONDS, 4 s here) until the
 * machine's offer is in, so a player waiting for a machine no longer costs a 503 a second. The offer
 * answers a held init as soon as the agent reports it (across processes too); a hold that runs out
 * answers timeout as before; an ended session answers not_found at once, also while held; a held init
 * ends when its client goes away or the server stops, and many held at once (PGlite: one database
 * connection) starve nothing.
 */
const holdSeconds = 4;
const holdMs = holdSeconds * 1000;
let server: TestServer;
let admin: TestUser;
let project: TestProject;
let game: string;

beforeAll(async () => {
  ({ server, admin, project, game } = await startCloudPlayWorld({ CLOUD_PLAY_INIT_HOLD_SECONDS: String(holdSeconds), CLOUD_PLAY_HEARTBEAT_SECONDS: '2', CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS: '30' }));
}, 60_000);
afterAll(() => server.stop());
afterEach(() => resetCloudPlay(server));

const newPlayer = () => newCloudPlayer(server, project);

const heldInits = (target: TestServer = server) => channelSubscriberCount(target.deps.database, cloudSessionChannel);

async function waitUntil(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await Bun.sleep(10);
  }
}

/** A promise with whether it has settled yet. */
function tracked<T>(promise: Promise<T>): { promise: Promise<T>; readonly settled: boolean } {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return {
    promise,
    get settled() {
      return settled;
    },
  };
}

const startsIn = (work: MachineWork[]) => work.filter((item) => item.kind === 'start').map((item) => item.session);

/** A machine online with room, and a session assigned to it (no offer yet). */
async function assignedSession(agent?: CloudAgentClient): Promise<{ agent: CloudAgentClient; created: CreatedCloudSession }> {
  const machine = agent ?? (await addMachine(server, admin, { capacity: 8 }));
  await machine.provide();
  const created = await createSession(server, await newPlayer(), project.id, game);
  expect((await player(server, created.token).state()).body.status).toBe('assigned');
  return { agent: machine, created };
}

describe('a held init', () => {
  test('answers the offer as soon as the agent reports it, well before the hold ends (REST and tRPC)', async () => {
    const { agent, created } = await assignedSession();
    const before = heldInits();
    const started = performance.now();
    const init = tracked(player(server, created.token).init());
    await waitUntil(() => heldInits() === before + 1, 'the init held');
    expect(startsIn((await agent.provide()).work)).toEqual([created.session]);
    agent.report(created.session, 'preparing');
    await agent.provide();
    expect(init.settled).toBe(false); // a start alone is no offer
    const offer = offerText('held');
    agent.report(created.session, 'offered', { offer });
    await agent.provide();
    // Had it waited for the hold, it would answer timeout; it is the offer, before the hold's end.
    expect(await init.promise).toEqual({ status: 200, body: offer });
    expect(performance.now() - started).toBeLessThan(holdMs);
    await waitUntil(() => heldInits() === before, 'the held init stops listening');

    const second = await assignedSession(agent);
    const trpcInit = server.trpc().cloudPlay.init.mutate({ token: second.created.token });
    await waitUntil(() => heldInits() === before + 1, 'the tRPC init held');
    await agent.provide();
    agent.report(second.created.session, 'offered', { offer: offerText('trpc') });
    await agent.provide();
    expect(await trpcInit).toBe(offerText('trpc'));
  });

  test('with no offer: timeout (503) once the hold has run out, as before; a waiting session too, and over tRPC', async () => {
    const { created } = await assignedSession();
    const started = performance.now();
    const answer = await player(server, created.token).init();
    expect(performance.now() - started).toBeGreaterThanOrEqual(holdMs - 50);
    expect(answer).toMatchObject({ status: 503, body: { code: 'timeout', details: { status: 'assigned' } } });

    // The only machine online is a full one: the next session waits.
    await server.deps.db.update(cloudMachines).set({ revoked: true });
    await fullMachine(server, admin, await newPlayer(), project.id, game);
    const waiting = await createSession(server, await newPlayer(), project.id, game);
    const waited = performance.now();
    expect(await trpcFailureStatus(server.trpc().cloudPlay.init.mutate({ token: waiting.token }))).toEqual({ code: 'timeout', httpStatus: 503 });
    expect(performance.now() - waited).toBeGreaterThanOrEqual(holdMs - 50);
    expect((await player(server, waiting.token).state()).body.status).toBe('waiting');
  });

  test('an ended session answers not_found at once; one that ends while its init is held too', async () => {
    const { agent, created } = await assignedSession();
    await player(server, created.token).stop();
    const started = performance.now();
    expect(await player(server, created.token).init()).toMatchObject({ status: 404, body: { code: 'not_found', details: { status: 'ended', reason: 'stopped' } } });
    expect(performance.now() - started).toBeLessThan(holdMs / 2);

    const next = await assignedSession(agent);
    const before = heldInits();
    const init = tracked(player(server, next.created.token).init());
    await waitUntil(() => heldInits() === before + 1, 'the init held');
    const ending = performance.now();
    // The agent ends it (the game failed), through its report.
    agent.report(next.created.session, 'errored', { reason: 'the game failed' });
    await agent.provide();
    expect(await init.promise).toMatchObject({ status: 404, body: { code: 'not_found', details: { status: 'errored', reason: 'the game failed' } } });
    expect(performance.now() - ending).toBeLessThan(holdMs / 2);
  });

  test('ends as soon as its client goes away: it stops listening', async () => {
    const { created } = await assignedSession();
    const before = heldInits();
    const controller = new AbortController();
    const init = server.fetch('/api/cloud-play/session/init', { method: 'POST', json: { token: created.token }, signal: controller.signal }).catch((error: unknown) => error);
    await waitUntil(() => heldInits() === before + 1, 'the init held');
    const aborted = performance.now();
    controller.abort();
    await init;
    await waitUntil(() => heldInits() === before, 'the abandoned init stops listening', holdMs / 2);
    expect(performance.now() - aborted).toBeLessThan(holdMs / 2);
  });

  test('many held at once (PGlite: one database connection) starve nothing; each answers its own offer or its timeout', async () => {
    const agent = await addMachine(server, admin, { capacity: 8 });
    const sessions: CreatedCloudSession[] = [];
    for (let index = 0; index < 6; index++) sessions.push((await assignedSession(agent)).created);
    const before = heldInits();
    const inits = sessions.map((session) => tracked(player(server, session.token).init()));
    await waitUntil(() => heldInits() === before + sessions.length, 'every init held');

    // Meanwhile every other kind of call is answered, before any hold ends.
    expect((await server.fetch('/health')).status).toBe(200);
    expect((await player(server, sessions[0]!.token).state()).status).toBe(200);
    expect((await server.trpc(admin.token).admin.cloudMachines.list.query()).length).toBeGreaterThan(0);
    expect((await server.fetch(`/api/projects/${project.id}`, { token: admin.token })).status).toBe(200);
    // The agent's call too: the last session's start (the earlier ones went with each assignedSession's
    // call, and come again only once a heartbeat passed without a report of them).
    const starts = startsIn((await agent.provide()).work);
    expect(starts).toContain(sessions.at(-1)!.session);
    expect(sessions.map((session) => session.session)).toEqual(expect.arrayContaining(starts));
    expect(inits.some((init) => init.settled)).toBe(false);

    // Half get their offer (one report call for three sessions); the others time out.
    for (const session of sessions.slice(0, 3)) agent.report(session.session, 'offered', { offer: offerText(session.session) });
    for (const session of sessions.slice(3)) agent.report(session.session, 'preparing');
    await agent.provide();
    const answers = await Promise.all(inits.map((init) => init.promise));
    expect(answers.slice(0, 3)).toEqual(sessions.slice(0, 3).map((session) => ({ status: 200, body: offerText(session.session) })));
    for (const answer of answers.slice(3)) expect(answer).toMatchObject({ status: 503, body: { code: 'timeout', details: { status: 'assigned' } } });
    await waitUntil(() => heldInits() === before, 'no init listening any more');
  }, 30_000);
});

describe('a server that stops', () => {
  test('ends its held inits at once: the stop does not wait for the hold', async () => {
    const stopping = await startTestServer({ CLOUD_PLAY_INIT_HOLD_SECONDS: '30' });
    let stopped = false;
    try {
      const owner = await registerUser(stopping);
      const own = await createProject(stopping, owner);
      const pkg = (await uploadLinuxGame(stopping, owner, own.id)).id;
      const machine = await addMachine(stopping, owner);
      await machine.provide();
      const created = await createSession(stopping, owner, own.id, pkg);
      const init = tracked(stopping.fetch('/api/cloud-play/session/init', { method: 'POST', json: { token: created.token } }).catch((error: unknown) => error));
      await waitUntil(() => heldInits(stopping) === 1, 'the init held');
      const started = performance.now();
      await stopping.stop();
      stopped = true;
      await init.promise;
      expect(performance.now() - started).toBeLessThan(15_000);
    } finally {
      if (!stopped) await stopping.stop();
    }
  }, 60_000);
});

// A second server process on the same PostgreSQL database: the offer comes in through it.
if (process.env.DATABASE_URL) describe('two processes on one PostgreSQL database', () => {
  test('an init held by one process answers when the agent reports the offer through the other', async () => {
    const other = await bootDeps(
      loadConfig(secondProcessEnv(server)),
    );
    const otherServer = startServer(other, { port: 0, hostname: '127.0.0.1' });
    try {
      const { agent, created } = await assignedSession();
      const there = createCloudAgentClient(otherServer.url, agent.token, { capacity: 8 });
      const before = heldInits();
      const init = tracked(player(server, created.token).init());
      await waitUntil(() => heldInits() === before + 1, 'the init held');
      expect(startsIn((await there.provide()).work)).toEqual([created.session]);
      const offer = offerText('across');
      there.report(created.session, 'offered', { offer });
      const reported = performance.now();
      await there.provide();
      expect(await init.promise).toEqual({ status: 200, body: offer });
      expect(performance.now() - reported).toBeLessThan(holdMs / 2);
    } finally {
      await otherServer.stop();
      await closeDeps(other);
    }
  }, 30_000);
});
