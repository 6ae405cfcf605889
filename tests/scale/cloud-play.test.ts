import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { inArray } from 'drizzle-orm';
import { cloudSessions } from '../../src/server/db/schema/index.ts';
import type { CreatedCloudSession, MachineWork } from '../../src/shared/schemas/cloud-play.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createCloudAgentClient, offerText, type CloudAgentClient } from '../support/cloud-agent-client.ts';
import { eventually, okJson, packArchiveOf, publishToStore, startCluster, uploadAcross, type Cluster, type ClusterNode } from '../support/cluster.ts';
import { createProject, type TestProject } from '../support/projects.ts';

/**
 * Cloud-play assignment with two processes: host agents long-poll different processes, players create
 * sessions through both, and each session goes to exactly one machine, within its capacity, at once
 * (a create through one process wakes a poll held by the other: NOTIFY cloud_play). Scripted agents
 * (tests/support/cloud-agent-client.ts) stand for the real one.
 */
const heartbeatSeconds = 5;

let cluster: Cluster;
let a: ClusterNode;
let b: ClusterNode;
let admin: TestUser;
let project: TestProject;
let game: string;
let archive: Uint8Array;

beforeAll(async () => {
  cluster = await startCluster({
    env: {
      // Every new account may play in the cloud.
      DEFAULT_PRIVILEGES: 'create_project,cloud_play',
      CLOUD_PLAY_HEARTBEAT_SECONDS: String(heartbeatSeconds),
      CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS: '20',
    },
  });
  ({ a, b } = cluster);
  admin = await registerUser(a.server);
  project = await createProject(a.server, admin);
  archive = await packArchiveOf({ 'game.sh': '#!/bin/sh\necho hello\n', 'data/level.txt': 'level 1' }, { executables: ['game.sh'] });
  const uploaded = await uploadAcross({ createOn: b, partsTo: [a, b], finalizeOn: b }, admin, project.id, archive, { tags: ['os:linux', 'arch:x86'], entrypoint: ['game.sh'] });
  game = (await okJson<{ id: string }>(uploaded.finalize, 'finalize')).id;
  // Public, so that any account (with cloud_play) may play it.
  await publishToStore(a, admin, project.id, [game]);
}, 90_000);
afterAll(() => cluster?.stop());

type Machine = { id: string; node: ClusterNode; agent: CloudAgentClient };
type Delivery = { kind: MachineWork['kind']; session: string; machine: string; via: string; at: number };

async function addMachine(madeOn: ClusterNode, pollsOn: ClusterNode, capacity: number): Promise<Machine> {
  const created = await madeOn.trpc(admin.token).admin.cloudMachines.create.mutate({ title: `Rack ${Math.random().toString(36).slice(2, 6)}` });
  return { id: created.machine.id, node: pollsOn, agent: createCloudAgentClient(pollsOn.url, created.token, { capacity }) };
}

/**
 * The agent's loop: held provide calls one after the other until stopped; a start is acknowledged
 * (reported 'preparing'), a stop reported 'ended', an answer recorded. Every item is recorded with the
 * process whose held call delivered it.
 */
function poll(machine: Machine, deliveries: Delivery[], signal: AbortSignal): Promise<void> {
  return (async () => {
    while (!signal.aborted) {
      let work: MachineWork[];
      try {
        ({ work } = await machine.agent.provide({ wait: true, signal }));
      } catch (error) {
        if (signal.aborted) return;
        throw error;
      }
      for (const item of work) {
        deliveries.push({ kind: item.kind, session: item.session, machine: machine.id, via: machine.node.name, at: performance.now() });
        if (item.kind === 'start') machine.agent.report(item.session, 'preparing');
        if (item.kind === 'stop') machine.agent.report(item.session, 'ended', { reason: item.reason });
      }
    }
  })();
}

async function createSession(node: ClusterNode, user: TestUser): Promise<CreatedCloudSession & { createdAt: number; via: string }> {
  const created = await okJson<CreatedCloudSession>(node.fetch(`/api/projects/${project.id}/packages/${game}/cloud-play`, { method: 'POST', token: user.token }), `session on ${node.name}`);
  return { ...created, createdAt: performance.now(), via: node.name };
}

const player = (node: ClusterNode, token: string) => ({
  init: () => node.fetch('/api/cloud-play/session/init', { method: 'POST', json: { token } }),
  connect: (sdp: string) => node.fetch('/api/cloud-play/session/connect', { method: 'POST', json: { token, sdp } }),
  stop: () => node.fetch('/api/cloud-play/session/stop', { method: 'POST', json: { token } }),
  state: () => okJson<{ status: string; reason: string | null }>(node.fetch(`/api/cloud-play/session?token=${encodeURIComponent(token)}`), 'state'),
});

describe('assignment exactly once across processes', () => {
  test('machines long-polling A and B, sessions created through both: each session started once on one machine, none over capacity, freed slots refilled once', async () => {
    const capacity = 2;
    const machines = [await addMachine(a, a, capacity), await addMachine(b, a, capacity), await addMachine(a, b, capacity), await addMachine(b, b, capacity)];
    await Promise.all(machines.map((machine) => machine.agent.provide())); // live
    const deliveries: Delivery[] = [];
    const stopping = new AbortController();
    const loops = machines.map((machine) => poll(machine, deliveries, stopping.signal));
    try {
      await Bun.sleep(300); // every poll is held by now

      const players = await Promise.all(Array.from({ length: 10 }, (_, index) => registerUser((index % 2 ? b : a).server)));
      const sessions = await Promise.all(players.map((user, index) => createSession(index % 2 ? b : a, user)));
      const ids = sessions.map((session) => session.session);
      const starts = () => deliveries.filter((item) => item.kind === 'start');
      await eventually('8 starts', () => starts().length >= 8, 10_000);
      await Bun.sleep(500); // a second start of any session would have come by now

      const rows = await cluster.db.select().from(cloudSessions).where(inArray(cloudSessions.id, ids));
      const assigned = rows.filter((row) => row.status === 'assigned');
      expect(assigned).toHaveLength(machines.length * capacity);
      expect(rows.filter((row) => row.status === 'waiting')).toHaveLength(2);
      for (const machine of machines) expect(assigned.filter((row) => row.machineId === machine.id)).toHaveLength(capacity);
      // Each assigned session started once, by the machine its row names; no waiting one anywhere.
      for (const row of assigned) expect(starts().filter((item) => item.session === row.id).map((item) => item.machine)).toEqual([row.machineId!]);
      expect(starts()).toHaveLength(assigned.length);
      // Polls held by both processes delivered starts, also of sessions created through the other process,
      // without waiting for a heartbeat: the create's notification woke them.
      expect(new Set(starts().map((item) => item.via))).toEqual(new Set(['A', 'B']));
      const byId = new Map(sessions.map((session) => [session.session, session]));
      expect(starts().some((item) => item.via !== byId.get(item.session)!.via)).toBe(true);
      for (const item of starts()) expect(item.at - byId.get(item.session)!.createdAt).toBeLessThan(heartbeatSeconds * 1000 - 1000);

      // Two players stop, through the process that did not create their session: the machines hear
      // the stops, and the two waiting sessions take the freed slots, each once.
      const waiting = rows.filter((row) => row.status === 'waiting').map((row) => row.id);
      const leaving = assigned.slice(0, 2).map((row) => byId.get(row.id)!);
      for (const session of leaving) expect((await player(session.via === 'A' ? b : a, session.token).stop()).status).toBe(200);
      await eventually('the waiting sessions started', () => waiting.every((id) => starts().some((item) => item.session === id)), 10_000);
      await Bun.sleep(500);
      for (const session of leaving) {
        expect(deliveries.filter((item) => item.kind === 'stop' && item.session === session.session).map((item) => item.machine)).toEqual([
          assigned.find((row) => row.id === session.session)!.machineId!,
        ]);
      }
      for (const id of ids) expect({ id, starts: starts().filter((item) => item.session === id).length }).toEqual({ id, starts: 1 });
      const after = await cluster.db.select().from(cloudSessions).where(inArray(cloudSessions.id, ids));
      const held = after.filter((row) => row.status === 'assigned');
      expect(held).toHaveLength(machines.length * capacity);
      for (const machine of machines) expect(held.filter((row) => row.machineId === machine.id).length).toBeLessThanOrEqual(capacity);
    } finally {
      stopping.abort();
      await Promise.allSettled(loops);
      // Out of the next test's way.
      await cluster.db.update(cloudSessions).set({ status: 'ended', reason: 'test_over', endedAt: new Date() });
      await Promise.all(machines.map((machine) => machine.node.trpc(admin.token).admin.cloudMachines.revoke.mutate({ machine: machine.id })));
    }
  }, 60_000);

  test('one player creating sessions through both processes at once keeps one live session; the others end replaced', async () => {
    // A session is made only while a machine is online.
    const machine = await addMachine(a, b, 1);
    await machine.agent.provide();
    const user = await registerUser(a.server);
    const created = await Promise.all([a, b, a, b, a, b].map((node) => createSession(node, user)));
    const rows = await cluster.db.select().from(cloudSessions).where(inArray(cloudSessions.id, created.map((session) => session.session)));
    const live = rows.filter((row) => !['ended', 'errored'].includes(row.status));
    expect(live).toHaveLength(1);
    expect(rows.filter((row) => row.status === 'ended').map((row) => row.reason)).toEqual(created.slice(1).map(() => 'replaced'));
    await okJson(player(b, created.find((session) => session.session === live[0]!.id)!.token).stop(), 'stop');
  });

  test('the offer and answer cross processes: the agent polls A, the player talks to B, and the package comes through B', async () => {
    const machine = await addMachine(a, a, 1);
    await machine.agent.provide();
    const user = await registerUser(b.server);
    const session = await createSession(b, user);
    const start = (await machine.agent.provideUntilWork()).find((item): item is Extract<MachineWork, { kind: 'start' }> => item.kind === 'start');
    expect(start?.session).toBe(session.session);

    // The agent fetches the package through the other process, with signed URLs any process serves.
    const access = await okJson<{ archiveUrl: string }>(createCloudAgentClient(b.url, machine.agent.token).access(start!.package), 'access on B');
    const served = new Uint8Array(await (await fetch(a.at(access.archiveUrl))).arrayBuffer());
    expect(Buffer.from(served).equals(Buffer.from(archive))).toBe(true);

    machine.agent.report(session.session, 'offered', { offer: offerText('across') });
    await machine.agent.provide();
    const init = await player(b, session.token).init();
    expect(init.status).toBe(200);
    expect(await init.json()).toBe(offerText('across'));

    const held = machine.agent.provide({ wait: true });
    await Bun.sleep(300);
    const connected = performance.now();
    expect((await player(b, session.token).connect('v=0 answer through B')).status).toBe(200);
    expect((await held).work).toEqual([{ kind: 'answer', session: session.session, sdp: 'v=0 answer through B' }]);
    expect(performance.now() - connected).toBeLessThan(1000);
    machine.agent.report(session.session, 'playing');
    await machine.agent.provide();
    expect((await player(a, session.token).state()).status).toBe('playing');
  }, 30_000);
});
