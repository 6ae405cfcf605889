import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { cloudMachines, cloudSessions } from '../../src/server/db/schema/index.ts';
import { ConfigError, loadConfig, servingClockTimings } from '../../src/server/config.ts';
import type { LogFields, Logger } from '../../src/server/logger.ts';
import type { MachineWork } from '../../src/shared/schemas/cloud-play.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { offerText } from '../support/cloud-agent-client.ts';
import { addMember, createProject, grantPrivilege, type TestProject } from '../support/projects.ts';
import { type TestServer } from '../support/server.ts';
import { trpcFailure, trpcFailureStatus } from '../support/trpc-failure.ts';
import { addMachine, createSession, createSessionResponse, player, resetCloudPlay, startCloudPlayWorld, uploadLinuxGame } from './cloud-play-support.ts';
import { publishPackages } from './packages-downloads-support.ts';

/**
 * Cloud play, the player's side (spec §4, §6, §7): creating a session on a Linux x86 package (REST and
 * tRPC), the refusals, visibility, one live session per user, init/connect/state/stop, the settings
 * and ICE servers from the configuration, and the administrators' machine calls. The machine side is
 * a scripted agent (tests/support/cloud-agent-client.ts).
 */
const turnSecret = 'turn-credential-never-logged-7f3a';
const logLines: string[] = [];
const capture = (message: string, fields?: LogFields) => void logLines.push(JSON.stringify({ message, ...fields }));
const log: Logger = { info: capture, error: capture, debug: capture };

let server: TestServer;
let admin: TestUser;
let project: TestProject;
let game: string;

beforeAll(async () => {
  ({ server, admin, project, game } = await startCloudPlayWorld(
    {
      CLOUD_PLAY_ICE_SERVERS: JSON.stringify([{ urls: 'stun:stun.example.org:3478' }, { urls: ['turn:turn.example.org:3478'], username: 'player', credential: turnSecret }]),
      CLOUD_PLAY_WIDTH: '1920',
      CLOUD_PLAY_HEIGHT: '1080',
      CLOUD_PLAY_FPS: '30',
      CLOUD_PLAY_HEARTBEAT_SECONDS: '5',
    },
    { log },
  ));
}, 60_000);
afterAll(() => server.stop());
afterEach(() => resetCloudPlay(server));

/** A machine online with room (a session can only be created while one is). */
async function onlineMachine(capacity = 8) {
  const agent = await addMachine(server, admin, { capacity });
  await agent.provide();
  return agent;
}

const startOf = (work: MachineWork[]) => work.find((item): item is Extract<MachineWork, { kind: 'start' }> => item.kind === 'start');

describe('a session from create to stop', () => {
  test('REST: create, the machine starts it, init waits then answers the offer, connect reaches the agent, playing, stop', async () => {
    const agent = await addMachine(server, admin, { capacity: 1 });
    await agent.provide(); // the machine is live
    const created = await createSession(server, admin, project.id, game);
    expect(created.session).toMatch(/^[a-z0-9]+$/);
    expect(created.token).toStartWith('cp_');
    expect(created.settings).toEqual({ width: 1920, height: 1080, fps: 30, idleSeconds: 300, maxSeconds: 3600 });
    expect(created.iceServers).toEqual([{ urls: 'stun:stun.example.org:3478' }, { urls: ['turn:turn.example.org:3478'], username: 'player', credential: turnSecret }]);
    const calls = player(server, created.token);

    // Assigned at create (the machine was free), but no offer yet: init is held (CLOUD_PLAY_INIT_HOLD_SECONDS, 8 s
    // by default) and answers with the offer as soon as the agent reports it.
    expect((await calls.state()).body).toEqual({ status: 'assigned', reason: null });
    const initStarted = performance.now();
    const heldInit = calls.init();

    const { work } = await agent.provide();
    const start = startOf(work)!;
    expect(start).toMatchObject({
      kind: 'start',
      session: created.session,
      package: { project: project.id, branch: '-', version: '-', package: game, title: 'Linux x86', entrypoint: ['game.sh'] },
      settings: created.settings,
      iceServers: created.iceServers,
    });
    expect(start.package.size).toBeGreaterThan(0);
    expect(start.package.indexHash).toMatch(/^[0-9a-f]{64}$/);

    agent.report(created.session, 'preparing');
    expect((await agent.provide()).work).toEqual([]); // the start is not handed again once reported
    const offer = offerText('rest');
    agent.report(created.session, 'offered', { offer });
    await agent.provide();
    expect(await heldInit).toEqual({ status: 200, body: offer });
    expect(performance.now() - initStarted).toBeLessThan(server.deps.config.cloudPlay.initHoldMs);
    expect(await calls.init()).toEqual({ status: 200, body: offer });
    expect((await calls.state()).body.status).toBe('offered');

    expect(await calls.connect('v=0 answer-sdp')).toEqual({ status: 200, body: { ok: true } });
    expect((await agent.provide()).work).toEqual([{ kind: 'answer', session: created.session, sdp: 'v=0 answer-sdp' }]);
    agent.report(created.session, 'connecting');
    expect((await agent.provide()).work).toEqual([]);
    expect((await calls.connect()).body).toMatchObject({ code: 'name_conflict', details: { reason: 'already_connected' } });

    agent.report(created.session, 'playing');
    await agent.provide();
    expect((await calls.state()).body).toEqual({ status: 'playing', reason: null });

    expect(await calls.stop()).toEqual({ status: 200, body: { ok: true } });
    expect((await calls.state()).body).toEqual({ status: 'ended', reason: 'stopped' });
    expect((await agent.provide()).work).toEqual([{ kind: 'stop', session: created.session, reason: 'stopped' }]);
    agent.report(created.session, 'ended', { reason: 'stopped' });
    expect((await agent.provide()).work).toEqual([]);
    agent.report(created.session, undefined);

    // Stopping again is fine; init and connect of an ended session are not_found, saying how it ended.
    expect((await calls.stop()).status).toBe(200);
    expect(await calls.init()).toMatchObject({ status: 404, body: { code: 'not_found', details: { status: 'ended', reason: 'stopped' } } });
    expect((await calls.connect()).body).toMatchObject({ code: 'not_found', details: { reason: 'stopped' } });
  });

  test('tRPC: cloudPlay.create, init, connect, state, stop are the same services', async () => {
    const agent = await addMachine(server, admin, { capacity: 1 });
    await agent.provide();
    const user = await registerUser(server);
    await grantPrivilege(server, user, 'cloud_play');
    await addMember(server, project, user, 'tester');
    const trpc = server.trpc(user.token);
    const created = await trpc.cloudPlay.create.mutate({ project: project.id, package: game });
    expect(created.settings.width).toBe(1920);
    // Held until the offer is in (the timeout after the hold: cloud-play-init-hold.test.ts).
    const heldInit = trpc.cloudPlay.init.mutate({ token: created.token });
    const { work } = await agent.provide();
    expect(startOf(work)?.session).toBe(created.session);
    const offer = offerText('trpc');
    agent.report(created.session, 'offered', { offer });
    await agent.provide();
    expect(await heldInit).toBe(offer);
    // A visitor's client works too: the session token is the access.
    expect(await server.trpc().cloudPlay.init.mutate({ token: created.token })).toBe(offer);
    expect(await trpc.cloudPlay.connect.mutate({ token: created.token, sdp: 'v=0 trpc-answer' })).toEqual({ ok: true });
    expect((await agent.provide()).work).toEqual([{ kind: 'answer', session: created.session, sdp: 'v=0 trpc-answer' }]);
    agent.report(created.session, 'playing');
    await agent.provide();
    expect(await trpc.cloudPlay.state.query({ token: created.token })).toEqual({ status: 'playing', reason: null });
    expect(await trpc.cloudPlay.stop.mutate({ token: created.token })).toEqual({ ok: true });
    expect(await trpc.cloudPlay.state.query({ token: created.token })).toEqual({ status: 'ended', reason: 'stopped' });
    expect(await trpcFailureStatus(trpc.cloudPlay.state.query({ token: 'cp_unknown' }))).toEqual({ code: 'not_found', httpStatus: 404 });
    expect(await trpcFailureStatus(trpc.cloudPlay.init.mutate({ token: 'a b' }))).toEqual({ code: 'bad_param', httpStatus: 400 });
    // The machine hears the stop.
    expect((await agent.provide()).work).toEqual([{ kind: 'stop', session: created.session, reason: 'stopped' }]);
  });

  test('TURN credentials reach players and agents but never the log', () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.filter((line) => line.includes(turnSecret))).toEqual([]);
  });
});

describe('who may play what (spec §6)', () => {
  test('a visitor is unauthorized; without privilege cloud_play insufficient_privileges, with a reason', async () => {
    const visitor = await createSessionResponse(server, undefined, project.id, game);
    expect(visitor.status).toBe(401);
    expect((await visitor.json()).code).toBe('unauthorized');

    const member = await registerUser(server);
    await addMember(server, project, member, 'developer');
    const refused = await createSessionResponse(server, member, project.id, game);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      code: 'insufficient_privileges',
      message: 'Playing in the cloud needs the cloud_play privilege: an administrator of this instance can grant it',
      details: { reason: 'missing_privilege', privilege: 'cloud_play' },
    });
    expect(await trpcFailure(server.trpc(member.token).cloudPlay.create.mutate({ project: project.id, package: game }))).toMatchObject({ code: 'insufficient_privileges', httpStatus: 403 });
  });

  test('a package without both os:linux and arch:x86 is not_supported, naming what is missing', async () => {
    const web = await uploadLinuxGame(server, admin, project.id, { tags: ['os:web'] });
    const linuxArm = await uploadLinuxGame(server, admin, project.id, { tags: ['os:linux', 'arch:arm'] });
    const windows = await uploadLinuxGame(server, admin, project.id, { tags: ['os:windows', 'arch:x86'] });
    const answers = await Promise.all([web, linuxArm, windows].map(async (pkg) => {
      const response = await createSessionResponse(server, admin, project.id, pkg.id);
      return { status: response.status, body: await response.json() };
    }));
    expect(answers.map((answer) => answer.status)).toEqual([501, 501, 501]);
    expect(answers.map((answer) => answer.body.details)).toEqual([
      { reason: 'missing_tags', tags: ['os:linux', 'arch:x86'] },
      { reason: 'missing_tags', tags: ['arch:x86'] },
      { reason: 'missing_tags', tags: ['os:linux'] },
    ]);
    expect(answers[0]!.body).toMatchObject({ code: 'not_supported', message: 'Only packages tagged os:linux and arch:x86 can be played in the cloud' });
    expect(await trpcFailureStatus(server.trpc(admin.token).cloudPlay.create.mutate({ project: project.id, package: web.id }))).toEqual({ code: 'not_supported', httpStatus: 501 });
  });

  test("a private package is not_found for non-members, even with the privilege; members play it", async () => {
    const outsider = await registerUser(server);
    await grantPrivilege(server, outsider, 'cloud_play');
    const refused = await createSessionResponse(server, outsider, project.id, game);
    expect(refused.status).toBe(404);
    expect((await refused.json()).code).toBe('not_found');
    expect((await createSessionResponse(server, outsider, project.id, 'nothing-here')).status).toBe(404);
    expect(await trpcFailureStatus(server.trpc(outsider.token).cloudPlay.create.mutate({ project: project.id, package: game }))).toEqual({ code: 'not_found', httpStatus: 404 });
    await addMember(server, project, outsider, 'tester');
    await onlineMachine();
    expect((await createSessionResponse(server, outsider, project.id, game)).status).toBe(200);
  });

  test("a public branch's package is playable by a non-member with the privilege; an unpublished one of the same project is not", async () => {
    const owner = await registerUser(server);
    const publicProject = await createProject(server, owner);
    const published = await uploadLinuxGame(server, owner, publicProject.id);
    const unpublished = await uploadLinuxGame(server, owner, publicProject.id);
    await publishPackages(server, owner, publicProject, [published.id]);
    const visitor = await registerUser(server);
    expect((await createSessionResponse(server, visitor, publicProject.id, published.id)).status).toBe(403);
    await grantPrivilege(server, visitor, 'cloud_play');
    await onlineMachine();
    const created = await createSession(server, visitor, publicProject.id, published.id);
    expect((await player(server, created.token).state()).body.status).toMatch(/^(waiting|assigned)$/);
    expect((await createSessionResponse(server, visitor, publicProject.id, unpublished.id)).status).toBe(404);
  });
});

describe('no machine online', () => {
  const refusal = { code: 'not_supported', message: 'No cloud-play machine is online right now: try again later', details: { reason: 'no_machine_online' } };

  test('create fails at once with not_supported (no_machine_online): none registered, never seen, revoked, capacity 0, silent past the timeout', async () => {
    const user = await registerUser(server);
    await grantPrivilege(server, user, 'cloud_play');
    await addMember(server, project, user, 'tester');
    const refused = async () => {
      const started = performance.now();
      const response = await createSessionResponse(server, user, project.id, game);
      // At once: no session waits CLOUD_PLAY_CONNECT_SECONDS for a machine that is not there.
      expect(performance.now() - started).toBeLessThan(server.deps.config.cloudPlay.connectMs);
      return { status: response.status, body: await response.json() };
    };
    expect(await refused()).toEqual({ status: 501, body: refusal });
    const neverSeen = await addMachine(server, admin);
    expect(await refused()).toEqual({ status: 501, body: refusal });
    const empty = await addMachine(server, admin, { capacity: 0 });
    await empty.provide();
    expect(await refused()).toEqual({ status: 501, body: refusal });
    const revoked = await onlineMachine();
    await server.trpc(admin.token).admin.cloudMachines.revoke.mutate({ machine: revoked.id });
    expect(await refused()).toEqual({ status: 501, body: refusal });
    const silent = await onlineMachine();
    await server.deps.db.update(cloudMachines).set({ lastSeenAt: sql`now() - interval '1 hour'` }).where(eq(cloudMachines.id, silent.id));
    expect(await refused()).toEqual({ status: 501, body: refusal });
    expect(await trpcFailure(server.trpc(user.token).cloudPlay.create.mutate({ project: project.id, package: game }))).toMatchObject({ code: 'not_supported', httpStatus: 501 });
    // Nothing was created, and the refusals of who may play still come first.
    expect(await server.deps.db.select().from(cloudSessions).where(eq(cloudSessions.userId, user.id))).toEqual([]);
    expect((await createSessionResponse(server, undefined, project.id, game)).status).toBe(401);

    // The never-seen machine calls: a session can be made, and it is that machine's.
    await neverSeen.provide();
    const created = await createSession(server, user, project.id, game);
    expect((await player(server, created.token).state()).body).toEqual({ status: 'assigned', reason: null });
  });

  test('a machine online but full: the session is created and waits for its slot', async () => {
    const occupant = await registerUser(server);
    await grantPrivilege(server, occupant, 'cloud_play');
    await addMember(server, project, occupant, 'tester');
    const machine = await onlineMachine(1);
    await createSession(server, occupant, project.id, game);
    const created = await createSession(server, admin, project.id, game);
    expect((await player(server, created.token).state()).body).toEqual({ status: 'waiting', reason: null });
    expect(startOf((await machine.provide()).work)?.session).not.toBe(created.session);
  });
});

describe('one live session per user', () => {
  test('a new session ends the previous one (replaced); its machine hears the stop; only the new one lives', async () => {
    const agent = await addMachine(server, admin, { capacity: 2 });
    await agent.provide();
    const user = await registerUser(server);
    await grantPrivilege(server, user, 'cloud_play');
    await addMember(server, project, user, 'tester');
    const first = await createSession(server, user, project.id, game);
    const firstStart = (await agent.provideUntilWork()).find((item) => item.session === first.session);
    expect(firstStart?.kind).toBe('start');
    agent.report(first.session, 'preparing');
    await agent.provide();

    const second = await createSession(server, user, project.id, game);
    expect((await player(server, first.token).state()).body).toEqual({ status: 'ended', reason: 'replaced' });
    const work = await agent.provideUntilWork();
    expect(work.map((item) => [item.kind, item.session])).toEqual([
      ['stop', first.session],
      ['start', second.session],
    ]);
    expect((await player(server, second.token).state()).body.status).toBe('assigned');

    // Concurrent creates by one user leave exactly one live session.
    const many = await Promise.all([1, 2, 3, 4].map(() => createSession(server, user, project.id, game)));
    const states = await Promise.all(many.map((session) => player(server, session.token).state()));
    expect(states.filter((state) => state.body.status !== 'ended')).toHaveLength(1);
    expect(states.filter((state) => state.body.reason === 'replaced')).toHaveLength(3);
  });
});

describe('session tokens', () => {
  test('an unknown token is not_found; a malformed one bad_param; no body bad_param', async () => {
    const unknown = player(server, 'cp_not-a-session');
    for (const answer of [await unknown.init(), await unknown.connect(), await unknown.state(), await unknown.stop()]) {
      expect(answer).toMatchObject({ status: 404, body: { code: 'not_found', message: 'cloud session not found' } });
    }
    const malformed = await server.fetch('/api/cloud-play/session/init', { method: 'POST', json: { token: 'has space' } });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).message).toBe('Invalid `token`');
    expect((await server.fetch('/api/cloud-play/session/connect', { method: 'POST', json: { token: 'cp_x' } })).status).toBe(400);
    expect((await server.fetch('/api/cloud-play/session')).status).toBe(400);
  });

  test('connect before the offer is timeout: ask again', async () => {
    const user = await registerUser(server);
    await grantPrivilege(server, user, 'cloud_play');
    await addMember(server, project, user, 'tester');
    await onlineMachine();
    const created = await createSession(server, user, project.id, game);
    expect(await player(server, created.token).connect()).toMatchObject({ status: 503, body: { code: 'timeout', details: { status: 'assigned' } } });
    await player(server, created.token).stop();
  });
});

describe('internal access (the agent fetches the package)', () => {
  test('only the machine the live session is assigned to gets signed URLs; they serve the archive and its index', async () => {
    const agent = await addMachine(server, admin, { capacity: 1 });
    const other = await addMachine(server, admin, { capacity: 1 });
    await agent.provide();
    const user = await registerUser(server);
    await grantPrivilege(server, user, 'cloud_play');
    await addMember(server, project, user, 'tester');
    const created = await createSession(server, user, project.id, game);
    const start = startOf(await agent.provideUntilWork());
    expect(start?.session).toBe(created.session);
    const ref = start!.package;

    const granted = await agent.access(ref);
    expect(granted.status).toBe(200);
    expect(granted.headers.get('cache-control')).toBe('no-store');
    const access = (await granted.json()) as { archiveUrl: string; indexUrl: string; size: number; indexHash: string; entrypoint: string[] };
    expect(access).toMatchObject({ size: ref.size, indexHash: ref.indexHash, entrypoint: ['game.sh'] });
    const download = (await (await server.fetch(`/api/projects/${project.id}/packages/${game}/download`, { token: admin.token })).json()) as { url: string };
    const [archive, expected, index] = await Promise.all([fetch(access.archiveUrl), fetch(download.url), fetch(access.indexUrl)]);
    expect(archive.status).toBe(200);
    expect(Bun.hash(await archive.arrayBuffer())).toBe(Bun.hash(await expected.arrayBuffer()));
    expect(new Bun.CryptoHasher('sha256').update(await index.arrayBuffer()).digest('hex')).toBe(ref.indexHash!);

    // Another machine, no token, a player's or a user's token, another path: refused.
    expect((await other.access(ref)).status).toBe(404);
    expect((await agent.access(ref, null)).status).toBe(401);
    expect((await agent.access(ref, created.token)).status).toBe(401);
    expect((await agent.access(ref, admin.token)).status).toBe(401);
    expect((await agent.access({ ...ref, branch: 'some-branch' })).status).toBe(404);
    expect((await agent.access({ ...ref, package: 'other' })).status).toBe(404);

    // Once the session ended, nothing more.
    await player(server, created.token).stop();
    expect((await agent.access(ref)).status).toBe(404);
  });
});

describe('host machines (administrators)', () => {
  test('list, create (the token shown once), revoke over tRPC; others are refused', async () => {
    const trpc = server.trpc(admin.token);
    const created = await trpc.admin.cloudMachines.create.mutate({ title: 'Basement rack' });
    expect(created.token).toStartWith('cm_');
    expect(created.machine).toMatchObject({ title: 'Basement rack', capacity: 0, liveSessions: 0, lastSeen: null, agentVersion: null, revoked: false });
    const listed = await trpc.admin.cloudMachines.list.query();
    const mine = listed.find((machine) => machine.id === created.machine.id);
    expect(mine).toEqual(created.machine);
    expect(JSON.stringify(listed)).not.toContain(created.token);

    const revoked = await trpc.admin.cloudMachines.revoke.mutate({ machine: created.machine.id });
    expect(revoked.revoked).toBe(true);
    expect(await trpcFailureStatus(trpc.admin.cloudMachines.revoke.mutate({ machine: 'no-such-machine' }))).toEqual({ code: 'not_found', httpStatus: 404 });
    expect(await trpcFailureStatus(trpc.admin.cloudMachines.create.mutate({ title: 'a\u0000b' }))).toEqual({ code: 'bad_param', httpStatus: 400 });

    const user = await registerUser(server);
    await grantPrivilege(server, user, 'cloud_play');
    const asUser = server.trpc(user.token);
    const calls = [
      () => asUser.admin.cloudMachines.list.query(),
      () => asUser.admin.cloudMachines.create.mutate({ title: 'mine' }),
      () => asUser.admin.cloudMachines.revoke.mutate({ machine: created.machine.id }),
    ];
    for (const call of calls) expect(await trpcFailureStatus(call())).toEqual({ code: 'insufficient_privileges', httpStatus: 403 });
    expect(await trpcFailureStatus(server.trpc().admin.cloudMachines.list.query())).toEqual({ code: 'unauthorized', httpStatus: 401 });
  });
});

describe('configuration', () => {
  const base = { DATA_DIR: '/tmp/cartridge-cloud-play-config', SECRET_KEY: 'config-test-secret-key-long-enough-0123456789' };

  test('defaults: no ICE servers, 1280×720 at 60 fps, 300 s idle, 3600 s at most; 60 s to connect, 30 s machine timeout, 20 s heartbeat, init held 8 s', () => {
    expect(loadConfig(base).cloudPlay).toEqual({
      iceServers: [],
      settings: { width: 1280, height: 720, fps: 60, idleSeconds: 300, maxSeconds: 3600 },
      connectMs: 60_000,
      machineTimeoutMs: 30_000,
      heartbeatMs: 20_000,
      initHoldMs: 8000,
      // A third of what the timeout leaves beyond a held provide call; four records per gap.
      servingGapMs: 3333,
      servingBeatMs: 833,
    });
    expect(loadConfig({ ...base, CLOUD_PLAY_INIT_HOLD_SECONDS: '0' }).cloudPlay.initHoldMs).toBe(0);
  });

  test('the serving clock fits in what the machine timeout leaves: at least 1 s, at most 10 s between records of a gap', () => {
    expect(servingClockTimings(6000, 2000)).toEqual({ servingGapMs: 1333, servingBeatMs: 333 });
    expect(servingClockTimings(1500, 500)).toEqual({ servingGapMs: 1000, servingBeatMs: 250 });
    expect(servingClockTimings(600_000, 20_000)).toEqual({ servingGapMs: 10_000, servingBeatMs: 2500 });
  });

  test('a bad value stops the server with one line; ICE servers (TURN credentials) are never echoed', () => {
    const refusal = (env: Record<string, string>) => {
      try {
        loadConfig({ ...base, ...env });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    const secretJson = `[{"urls":"turn:x","credential":"${turnSecret}"`;
    expect(refusal({ CLOUD_PLAY_ICE_SERVERS: secretJson })).toBe('Invalid CLOUD_PLAY_ICE_SERVERS: must be a JSON array of RTCIceServer objects');
    expect(refusal({ CLOUD_PLAY_ICE_SERVERS: `[{"urls":"http://x","credential":"${turnSecret}"}]` })).toBe(
      'Invalid CLOUD_PLAY_ICE_SERVERS: every url must start with stun:, stuns:, turn: or turns:',
    );
    expect(refusal({ CLOUD_PLAY_FPS: '500' })).toStartWith('Invalid CLOUD_PLAY_FPS="500"');
    expect(refusal({ CLOUD_PLAY_HEARTBEAT_SECONDS: '30' })).toBe('Invalid CLOUD_PLAY_HEARTBEAT_SECONDS="30": must be below CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS (30)');
    expect(refusal({ CLOUD_PLAY_INIT_HOLD_SECONDS: '31' })).toStartWith('Invalid CLOUD_PLAY_INIT_HOLD_SECONDS="31"');
    expect(refusal({ CLOUD_PLAY_INIT_HOLD_SECONDS: '-1' })).toStartWith('Invalid CLOUD_PLAY_INIT_HOLD_SECONDS="-1"');
    expect(loadConfig({ ...base, CLOUD_PLAY_HEARTBEAT_SECONDS: '0.5', CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS: '1.5' }).cloudPlay).toMatchObject({ heartbeatMs: 500, machineTimeoutMs: 1500 });
  });
});
