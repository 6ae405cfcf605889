import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTRPCClient, httpLink } from '@trpc/client';
import { MediaStreamTrack, RTCPeerConnection, useH264, useOPUS } from 'werift';
import type { AppRouter } from '../../src/server/trpc/router.ts';
import type { CreatedCloudSession } from '../../src/shared/schemas/cloud-play.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { startChildServer, type ChildServer } from '../support/child-server.ts';
import { startCloudAgent, type RunningCloudAgent } from '../support/cloud-agent.ts';
import { buildColourGame, requireHostPrograms } from '../support/cloudhost-tools.ts';
import { uploadPackage } from '../support/packages.ts';
import { createProject } from '../support/projects.ts';
import type { TestServer } from '../support/server.ts';

/**
 * Issue 27: a server restart must not end the sessions it has. The server runs as a real child process
 * on a persistent DATA_DIR (PGlite on disk, or its own PostgreSQL database with DATABASE_URL), the real
 * host agent (node dist/cloudhost.js) plays a session to a werift peer in this process, then the server
 * is killed with SIGKILL and kept down for longer than CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS (6 s here)
 * allows a machine to be silent, and started again on the same port and data. The stream goes from the
 * agent to the player directly: its video keeps arriving throughout; once the agent has reconnected
 * and the sweep has run (every provide call and every state call sweeps), the session is still
 * `playing`, and still is after more than a machine timeout.
 */
const machineTimeoutSeconds = 6;
const downMs = 10_000;

let child: ChildServer;
let server: TestServer;
let admin: TestUser;
let agent: RunningCloudAgent;
let gameId: string;
let projectId: string;
const scratch = mkdtempSync(join(tmpdir(), 'cloud-play-restart-'));

/** The child process through the shared helpers' TestServer shape (no deps: it runs apart). */
function asTestServer(target: ChildServer): TestServer {
  return {
    url: target.url,
    playUrl: target.url,
    dataDir: target.dataDir,
    fetch: (path, init) => target.fetch(path, init),
    trpc: (token) => createTRPCClient<AppRouter>({ links: [httpLink({ url: `${target.url}/trpc`, headers: () => (token ? { authorization: `Bearer ${token}` } : {}) })] }),
    get deps(): never {
      throw new Error('the server runs as a child process: its deps are not in this one');
    },
    stop: async () => {},
  };
}

beforeAll(async () => {
  requireHostPrograms();
  child = await startChildServer({
    env: {
      CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS: String(machineTimeoutSeconds),
      CLOUD_PLAY_HEARTBEAT_SECONDS: '2',
      CLOUD_PLAY_WIDTH: '320',
      CLOUD_PLAY_HEIGHT: '240',
      CLOUD_PLAY_FPS: '15',
      CLOUD_PLAY_IDLE_SECONDS: '600',
    },
    startTimeoutMs: 60_000,
  });
  server = asTestServer(child);
  admin = await registerUser(server); // the instance's first account: administrator, with cloud_play
  projectId = (await createProject(server, admin, 'Restart test')).id;
  buildColourGame(join(scratch, 'colour-game'));
  gameId = (await uploadPackage(server, admin, projectId, { 'bin/colour-game': readFileSync(join(scratch, 'colour-game')) }, { tags: ['os:linux', 'arch:x86'], entrypoint: ['bin', 'colour-game'], title: 'Colour game' })).id;
  const machine = await server.trpc(admin.token).admin.cloudMachines.create.mutate({ title: 'Restart rack' });
  agent = await startCloudAgent({ server: child.url, token: machine.token, capacity: 1 });
  await agent.waitForLog(/connected to the server/, 30_000);
}, 120_000);

afterAll(async () => {
  await agent?.stop('SIGKILL');
  await child?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function sessionState(token: string): Promise<{ status: string; reason: string | null }> {
  const response = await child.fetch(`/api/cloud-play/session?token=${encodeURIComponent(token)}`);
  if (response.status !== 200) throw new Error(`state: ${response.status} ${await response.text()}`);
  return (await response.json()) as { status: string; reason: string | null };
}

async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms; agent log:\n${agent.logs.slice(-20).join('\n')}\nserver log:\n${child.readLog().slice(-2000)}`);
    await Bun.sleep(100);
  }
}

/** The page's loop: init while it answers timeout; the offer's JSON text. */
async function waitForOffer(token: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await child.fetch('/api/cloud-play/session/init', { method: 'POST', json: { token } });
    const body = (await response.json()) as unknown;
    if (response.status === 200) return body as string;
    if ((body as { code?: string }).code !== 'timeout' || Date.now() > deadline) throw new Error(`init: ${response.status} ${JSON.stringify(body)}`);
    await Bun.sleep(250);
  }
}

/** The player as a werift peer: answers the offer and counts the video RTP packets. */
function startPlayer() {
  const pc = new RTCPeerConnection({ iceServers: [], iceAdditionalHostAddresses: ['127.0.0.1'], iceUseIpv6: false, bundlePolicy: 'max-bundle', codecs: { video: [useH264()], audio: [useOPUS()] } });
  const counts = { video: 0, connected: false };
  pc.onTrack.subscribe((track: MediaStreamTrack) => {
    track.onReceiveRtp.subscribe(() => {
      if (track.kind === 'video') counts.video += 1;
    });
  });
  pc.connectionStateChange.subscribe((state) => {
    if (state === 'connected') counts.connected = true;
  });
  return {
    pc,
    counts,
    async answer(offerText: string): Promise<string> {
      await pc.setRemoteDescription(JSON.parse(offerText) as { type: 'offer'; sdp: string });
      await pc.setLocalDescription(await pc.createAnswer());
      if (pc.iceGatheringState !== 'complete') await pc.iceGatheringStateChange.watch((state) => state === 'complete', 5000).catch(() => undefined);
      return pc.localDescription!.sdp;
    },
  };
}

/**
 * Watches the video until `until` resolves: packets must keep coming, each second's check finding more
 * than the one before (a stall of 3 s in a row fails). Returns the checks' counts.
 */
async function watchVideo(counts: { video: number }, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const seen: number[] = [counts.video];
  let stalled = 0;
  while (!done) {
    await Bun.sleep(1000);
    seen.push(counts.video);
    stalled = seen.at(-1)! > seen.at(-2)! ? 0 : stalled + 1;
    if (stalled >= 3) throw new Error(`the video stopped: packets seen each second ${seen.join(', ')}`);
  }
  await until;
  return seen;
}

test('a session keeps playing across a server restart longer than the machine timeout', async () => {
  const created = (await (await child.fetch(`/api/projects/${projectId}/packages/${gameId}/cloud-play`, { method: 'POST', token: admin.token })).json()) as CreatedCloudSession;
  expect(created.token).toStartWith('cp_');
  const player = startPlayer();
  try {
    const sdp = await player.answer(await waitForOffer(created.token));
    expect((await child.fetch('/api/cloud-play/session/connect', { method: 'POST', json: { token: created.token, sdp } })).status).toBe(200);
    await waitUntil(async () => player.counts.connected && (await sessionState(created.token)).status === 'playing', 'playing');
    await waitUntil(() => player.counts.video > 20, 'video packets');

    // Down: SIGKILL (no shutdown hook), and kept down well past the machine timeout.
    const logsBefore = agent.logs.length;
    const killedAt = Date.now();
    await child.kill();
    const down = (async () => {
      await agent.waitForLog(/cannot reach the server/, 20_000);
      await Bun.sleep(Math.max(0, downMs - (Date.now() - killedAt)));
    })();
    const whileDown = await watchVideo(player.counts, down);
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(downMs);
    expect(downMs).toBeGreaterThan(machineTimeoutSeconds * 1000 + 2000);

    // Up again on the same port and data; the agent finds it (it retries every ~2 s while unreachable).
    const up = (async () => {
      await child.restart();
      await waitUntil(() => agent.logs.slice(logsBefore).some((line) => /connected to the server/.test(line)), 'the agent reconnected');
    })();
    const whileComingBack = await watchVideo(player.counts, up);

    // The reconnected agent's provide calls and this state call both sweep: the session still plays,
    // and still does more than a machine timeout later, the video advancing all along.
    expect(await sessionState(created.token)).toEqual({ status: 'playing', reason: null });
    const later = (async () => {
      const until = Date.now() + (machineTimeoutSeconds + 2) * 1000;
      while (Date.now() < until) {
        expect(await sessionState(created.token)).toEqual({ status: 'playing', reason: null });
        await Bun.sleep(500);
      }
    })();
    const afterwards = await watchVideo(player.counts, later);
    console.log(`video packets, one check a second: down ${whileDown.join(' ')} | restarting ${whileComingBack.join(' ')} | after ${afterwards.join(' ')}`);
    expect(afterwards.at(-1)!).toBeGreaterThan(whileDown[0]!);

    // The session still ends normally: the player stops it, the agent hears the stop.
    expect((await child.fetch('/api/cloud-play/session/stop', { method: 'POST', json: { token: created.token } })).status).toBe(200);
    await agent.waitForLog(new RegExp(`session ${created.session}: ended \\(stopped\\)`), 30_000);
  } finally {
    await player.pc.close();
  }
}, 180_000);
