import { inArray } from 'drizzle-orm';
import { cloudMachines, cloudSessions } from '../../src/server/db/schema/index.ts';
import type { CreatedCloudSession } from '../../src/shared/schemas/cloud-play.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createCloudAgentClient, type CloudAgentClient } from '../support/cloud-agent-client.ts';
import { uploadPackage } from '../support/packages.ts';
import { addMember, createProject, grantPrivilege, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** What the cloud-play test files share: a Linux x86 game, machines, sessions and the player's calls. */

const linuxTags = ['os:linux', 'arch:x86'];

export function uploadLinuxGame(server: TestServer, user: TestUser, projectId: string, options: { tags?: string[]; title?: string } = {}): Promise<Package> {
  return uploadPackage(server, user, projectId, { 'game.sh': '#!/bin/sh\necho hello\n', 'data/level.txt': 'level 1' }, { tags: options.tags ?? linuxTags, entrypoint: ['game.sh'], title: options.title });
}

/** A server for a cloud-play test file, its first account (an administrator), a project and a Linux game. */
export async function startCloudPlayWorld(
  env: Record<string, string>,
  options?: Parameters<typeof startTestServer>[1],
): Promise<{ server: TestServer; admin: TestUser; project: TestProject; game: string }> {
  const server = await startTestServer(env, options);
  const admin = await registerUser(server);
  const project = await createProject(server, admin);
  const game = (await uploadLinuxGame(server, admin, project.id)).id;
  return { server, admin, project, game };
}

/** Every machine revoked and every live session ended: each test's machines and sessions are its own. */
export async function resetCloudPlay(server: TestServer): Promise<void> {
  await server.deps.db.update(cloudMachines).set({ revoked: true });
  await server.deps.db
    .update(cloudSessions)
    .set({ status: 'ended', reason: 'test_over', endedAt: new Date() })
    .where(inArray(cloudSessions.status, ['waiting', 'assigned', 'offered', 'answered', 'playing']));
}

/** A player: the cloud_play privilege, and a tester of the project. */
export async function newCloudPlayer(server: TestServer, project: TestProject): Promise<TestUser> {
  const user = await registerUser(server);
  await grantPrivilege(server, user, 'cloud_play');
  await addMember(server, project, user, 'tester');
  return user;
}

/** A machine made by an administrator over tRPC, and a scripted agent holding its token. */
export async function addMachine(server: TestServer, admin: TestUser, options: { title?: string; capacity?: number } = {}): Promise<CloudAgentClient & { id: string }> {
  const created = await server.trpc(admin.token).admin.cloudMachines.create.mutate({ title: options.title ?? `Rack ${Math.random().toString(36).slice(2, 6)}` });
  return Object.assign(createCloudAgentClient(server.url, created.token, { capacity: options.capacity ?? 1 }), { id: created.machine.id });
}

/**
 * A machine that is online but full (capacity 1, holding a session of `occupant`): sessions can be
 * created (a machine is online) and wait for a free slot. It calls no more: online for one machine timeout.
 */
export async function fullMachine(server: TestServer, admin: TestUser, occupant: TestUser, projectId: string, packageId: string): Promise<CloudAgentClient & { id: string }> {
  const agent = await addMachine(server, admin, { capacity: 1, title: 'Full rack' });
  await agent.provide();
  await createSession(server, occupant, projectId, packageId);
  return agent;
}

export function createSessionResponse(server: TestServer, user: TestUser | undefined, projectId: string, packageId: string): Promise<Response> {
  return server.fetch(`/api/projects/${projectId}/packages/${packageId}/cloud-play`, { method: 'POST', token: user?.token });
}

export async function createSession(server: TestServer, user: TestUser, projectId: string, packageId: string): Promise<CreatedCloudSession> {
  const response = await createSessionResponse(server, user, projectId, packageId);
  if (response.status !== 200) throw new Error(`create cloud session: ${response.status} ${await response.text()}`);
  return (await response.json()) as CreatedCloudSession;
}

/** The player's calls over REST, answered as they came: { status, body }. */
export function player(server: TestServer, token: string) {
  const call = async (method: string, path: string, json?: unknown) => {
    const response = await server.fetch(path, { method, json });
    return { status: response.status, body: (await response.json()) as any };
  };
  return {
    init: () => call('POST', '/api/cloud-play/session/init', { token }),
    connect: (sdp = 'v=0\r\no=- player 2 IN IP4 127.0.0.1\r\n') => call('POST', '/api/cloud-play/session/connect', { token, sdp }),
    state: () => call('GET', `/api/cloud-play/session?token=${encodeURIComponent(token)}`),
    stop: () => call('POST', '/api/cloud-play/session/stop', { token }),
  };
}

/** Polls the player's state until it is one of `statuses` (the deadlines are checked on each call). */
export async function waitForStatus(server: TestServer, token: string, statuses: string[], timeoutMs = 10_000): Promise<{ status: string; reason: string | null }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await player(server, token).state();
    if (statuses.includes(body.status) || Date.now() > deadline) return body;
    await Bun.sleep(50);
  }
}
