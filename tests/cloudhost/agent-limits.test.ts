import { afterAll, beforeAll, expect, test } from 'bun:test';
import { RTCPeerConnection, type RTCDataChannel } from 'werift';
import { encodeInput } from '../../src/shared/cloud-play/input.ts';
import type { CreatedCloudSession } from '../../src/shared/schemas/cloud-play.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { startCloudAgent, type RunningCloudAgent } from '../support/cloud-agent.ts';
import { requireHostPrograms } from '../support/cloudhost-tools.ts';
import { uploadPackage } from '../support/packages.ts';
import { createProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** The idle limit, end to end: a session nobody touches for CLOUD_PLAY_IDLE_SECONDS ends 'idle'; input defers it. */
let server: TestServer;
let admin: TestUser;
let agent: RunningCloudAgent;
let session: CreatedCloudSession;

beforeAll(async () => {
  requireHostPrograms();
  server = await startTestServer({ CLOUD_PLAY_WIDTH: '320', CLOUD_PLAY_HEIGHT: '240', CLOUD_PLAY_FPS: '10', CLOUD_PLAY_IDLE_SECONDS: '10', CLOUD_PLAY_HEARTBEAT_SECONDS: '5' });
  admin = await registerUser(server);
  const project = await createProject(server, admin);
  // A game that idles until it is stopped.
  const game = await uploadPackage(server, admin, project.id, { 'idle.sh': '#!/bin/sh\nwhile true; do sleep 1; done\n' }, { tags: ['os:linux', 'arch:x86'], entrypoint: ['idle.sh'] });
  const machine = await server.trpc(admin.token).admin.cloudMachines.create.mutate({ title: 'Idle rack' });
  agent = await startCloudAgent({ server: server.url, token: machine.token });
  // A session needs a machine online: the agent's first call.
  await agent.waitForLog(/connected to the server/);
  const response = await server.fetch(`/api/projects/${project.id}/packages/${game.id}/cloud-play`, { method: 'POST', token: admin.token });
  session = (await response.json()) as CreatedCloudSession;
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await server?.stop();
});

const state = async () => (await (await server.fetch(`/api/cloud-play/session?token=${encodeURIComponent(session.token)}`)).json()) as { status: string; reason: string | null };

test('no input for idleSeconds ends the session as idle; an input restarts the count', async () => {
  let offer: string | undefined;
  for (let i = 0; i < 80 && offer === undefined; i++) {
    const response = await server.fetch('/api/cloud-play/session/init', { method: 'POST', json: { token: session.token } });
    if (response.status === 200) offer = (await response.json()) as string;
    else await Bun.sleep(250);
  }
  const pc = new RTCPeerConnection({ iceServers: [], iceAdditionalHostAddresses: ['127.0.0.1'], iceUseIpv6: false, bundlePolicy: 'max-bundle' });
  let channel: RTCDataChannel | undefined;
  pc.onDataChannel.subscribe((opened) => (channel = opened));
  await pc.setRemoteDescription(JSON.parse(offer!) as { type: 'offer'; sdp: string });
  await pc.setLocalDescription(await pc.createAnswer());
  await server.fetch('/api/cloud-play/session/connect', { method: 'POST', json: { token: session.token, sdp: pc.localDescription!.sdp } });
  for (let i = 0; i < 100 && (await state()).status !== 'playing'; i++) await Bun.sleep(100);
  const playingAt = Date.now();
  expect((await state()).status).toBe('playing');
  // 6 s in, one key: the 10 s count starts again.
  await Bun.sleep(6000);
  for (let i = 0; i < 50 && channel?.readyState !== 'open'; i++) await Bun.sleep(100);
  channel!.send(Buffer.from(encodeInput({ type: 'keyDown', key: 57 })));
  channel!.send(Buffer.from(encodeInput({ type: 'keyUp', key: 57 })));
  await Bun.sleep(6000);
  expect((await state()).status).toBe('playing');
  let now = await state();
  while (now.status === 'playing' && Date.now() - playingAt < 25_000) {
    await Bun.sleep(250);
    now = await state();
  }
  expect(now).toEqual({ status: 'ended', reason: 'idle' });
  const seconds = (Date.now() - playingAt) / 1000;
  expect(seconds).toBeGreaterThan(15);
  expect(seconds).toBeLessThan(20);
  await pc.close();
}, 60_000);
