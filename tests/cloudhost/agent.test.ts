import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaStreamTrack, RTCPeerConnection, useH264, useOPUS, type RTCDataChannel } from 'werift';
import { encodeInput, encodePing, type InputEvent } from '../../src/shared/cloud-play/input.ts';
import type { CreatedCloudSession } from '../../src/shared/schemas/cloud-play.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { spawnSync } from 'node:child_process';
import { displayInUse } from '../../cloudhost/src/display.ts';
import { mountsBelow } from '../../cloudhost/src/session-disk.ts';
import { processesOfUids, startCloudAgent, type RunningCloudAgent } from '../support/cloud-agent.ts';
import { buildX11Probe, requireHostPrograms } from '../support/cloudhost-tools.ts';
import { startTestProxy } from '../support/http-proxy.ts';
import { uploadPackage } from '../support/packages.ts';
import { addMember, createProject, grantPrivilege, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * The real host agent (node dist/cloudhost.js) against the real server: a machine token from the
 * admin API, sessions created through the API, the offer it makes, a werift peer in this process
 * answering it as the page would, video and audio RTP flowing, input reaching the game, and every
 * way a session ends.
 */
let server: TestServer;
let admin: TestUser;
let project: TestProject;
let probeGame: Package;
let agent: RunningCloudAgent;
let machineToken: string;
const scratch = mkdtempSync(join(tmpdir(), 'cloudhost-e2e-'));

const linux = ['os:linux', 'arch:x86'];
/** CLOUDHOST_E2E_SIZE=1280x720x60 measures the production default; the suite runs smaller. */
const [width, height, fps] = (process.env.CLOUDHOST_E2E_SIZE ?? '640x480x30').split('x');

beforeAll(async () => {
  requireHostPrograms();
  server = await startTestServer({
    CLOUD_PLAY_WIDTH: width!,
    CLOUD_PLAY_HEIGHT: height!,
    CLOUD_PLAY_FPS: fps!,
    CLOUD_PLAY_HEARTBEAT_SECONDS: '5',
    CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS: '15',
    CLOUD_PLAY_IDLE_SECONDS: '600',
  });
  admin = await registerUser(server); // the first account: administrator, with cloud_play
  project = await createProject(server, admin);
  const probe = join(scratch, 'x11-probe');
  buildX11Probe(probe);
  probeGame = await uploadPackage(server, admin, project.id, { 'x11-probe': readFileSync(probe), 'port.txt': '1\n', 'outside.txt': '/usr/escape\n' }, { tags: linux, entrypoint: ['x11-probe'] });
  const created = await server.trpc(admin.token).admin.cloudMachines.create.mutate({ title: 'Test rack' });
  machineToken = created.token;
  agent = await startCloudAgent({ server: server.url, token: machineToken, capacity: 2 });
  await agent.waitForLog(/connected to the server/);
}, 60_000);

afterAll(async () => {
  await agent?.stop('SIGKILL');
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function createSession(packageId: string, user: TestUser = admin): Promise<CreatedCloudSession> {
  const response = await server.fetch(`/api/projects/${project.id}/packages/${packageId}/cloud-play`, { method: 'POST', token: user.token });
  if (response.status !== 200) throw new Error(`create: ${response.status} ${await response.text()}`);
  return (await response.json()) as CreatedCloudSession;
}

/** The page's loop: init every 250 ms while it answers timeout; the offer's JSON text. */
async function waitForOffer(token: string, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await server.fetch('/api/cloud-play/session/init', { method: 'POST', json: { token } });
    const body = (await response.json()) as unknown;
    if (response.status === 200) return body as string;
    if ((body as { code?: string }).code !== 'timeout' || Date.now() > deadline) throw new Error(`init: ${response.status} ${JSON.stringify(body)}`);
    await Bun.sleep(250);
  }
}

async function sessionState(token: string): Promise<{ status: string; reason: string | null }> {
  const response = await server.fetch(`/api/cloud-play/session?token=${encodeURIComponent(token)}`);
  return (await response.json()) as { status: string; reason: string | null };
}

async function waitForState(token: string, statuses: string[], timeoutMs = 20_000): Promise<{ status: string; reason: string | null }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await sessionState(token);
    if (statuses.includes(state.status)) return state;
    if (Date.now() > deadline) throw new Error(`session is ${JSON.stringify(state)}, not ${statuses.join('/')}; agent log:\n${agent.logs.slice(-20).join('\n')}`);
    await Bun.sleep(100);
  }
}

async function waitUntil(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms; agent log:\n${agent.logs.slice(-20).join('\n')}`);
    await Bun.sleep(50);
  }
}

/** The player's side as a werift peer: answers the offer, counts RTP, sends input on the agent's channel. */
class Player {
  readonly pc = new RTCPeerConnection({ iceServers: [], iceAdditionalHostAddresses: ['127.0.0.1'], iceUseIpv6: false, bundlePolicy: 'max-bundle', codecs: { video: [useH264()], audio: [useOPUS()] } });
  video = { packets: 0, frames: 0, firstAt: 0, keyframes: 0 };
  audio = { packets: 0 };
  channel: RTCDataChannel | undefined;
  /** What the agent sent back on the input channel (ping echoes). */
  received: number[][] = [];
  connectedAt = 0;

  constructor() {
    this.pc.onTrack.subscribe((track: MediaStreamTrack) => {
      track.onReceiveRtp.subscribe((packet) => {
        if (track.kind === 'audio') {
          this.audio.packets += 1;
          return;
        }
        this.video.packets += 1;
        this.video.firstAt ||= performance.now();
        if (packet.header.marker) this.video.frames += 1;
        // H.264 IDR (type 5), alone or as the first NAL of a STAP-A/FU-A: a keyframe.
        const nal = packet.payload[0]! & 0x1f;
        const inner = nal === 28 ? packet.payload[1]! & 0x1f : nal === 24 ? packet.payload[3]! & 0x1f : nal;
        if (inner === 5 && (nal !== 28 || (packet.payload[1]! & 0x80) !== 0)) this.video.keyframes += 1;
      });
    });
    this.pc.onDataChannel.subscribe((channel) => {
      this.channel = channel;
      channel.onMessage.subscribe((data) => {
        if (typeof data !== 'string') this.received.push([...data]);
      });
    });
    this.pc.connectionStateChange.subscribe((state) => {
      if (state === 'connected') this.connectedAt = performance.now();
    });
  }

  async answer(offerText: string): Promise<string> {
    const offer = JSON.parse(offerText) as { type: 'offer'; sdp: string };
    expect(offer.type).toBe('offer');
    await this.pc.setRemoteDescription(offer);
    await this.pc.setLocalDescription(await this.pc.createAnswer());
    if (this.pc.iceGatheringState !== 'complete') await this.pc.iceGatheringStateChange.watch((state) => state === 'complete', 5000).catch(() => undefined);
    return this.pc.localDescription!.sdp;
  }

  send(event: InputEvent): void {
    this.channel!.send(Buffer.from(encodeInput(event)));
  }

  close(): Promise<void> {
    return this.pc.close();
  }
}

/** A session up to playing: create, offer, answer, connected. */
async function playSession(packageId: string, user: TestUser = admin) {
  const createdAt = performance.now();
  const created = await createSession(packageId, user);
  const offer = await waitForOffer(created.token);
  const offerAt = performance.now();
  const player = new Player();
  const sdp = await player.answer(offer);
  const answeredAt = performance.now();
  const connect = await server.fetch('/api/cloud-play/session/connect', { method: 'POST', json: { token: created.token, sdp } });
  expect(connect.status).toBe(200);
  await waitUntil(() => player.connectedAt > 0 && player.channel?.readyState === 'open', 'connected with the input channel open', 15_000);
  await waitForState(created.token, ['playing']);
  return { created, player, offerMs: offerAt - createdAt, connectMs: player.connectedAt - answeredAt };
}

const sessionHome = (session: string) => join(agent.workDir, 'sessions', session, 'home');
const readEvents = (session: string) => {
  const path = join(sessionHome(session), 'events.txt');
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
};

describe('the host agent with the server', () => {
  test('offer, answer, video and audio RTP, input into the sandboxed game, then the player stops it', async () => {
    const { created, player, offerMs, connectMs } = await playSession(probeGame.id);
    expect(created.settings).toMatchObject({ width: Number(width), height: Number(height), fps: Number(fps) });

    // Video: frames at about the configured rate, with keyframes every second (the short GOP).
    await waitUntil(() => player.video.frames > 0, 'the first video frame');
    const firstFrameMs = player.video.firstAt - player.connectedAt;
    const framesBefore = player.video.frames;
    const keyframesBefore = player.video.keyframes;
    await Bun.sleep(2000);
    const frameRate = (player.video.frames - framesBefore) / 2;
    expect(frameRate).toBeGreaterThan(Number(fps) / 2);
    expect(player.video.keyframes - keyframesBefore).toBeGreaterThanOrEqual(1);
    // The video encoder shares its X server's IPC namespace (MIT-SHM between them), which is neither
    // the host's nor the game's; the sound encoder has one of its own.
    const ipcOf = (match: (comm: string, cmdline: string) => boolean) =>
      processesOfUids(agent.uidBase, 128)
        .filter((pid) => match(readFileSync(`/proc/${pid}/comm`, 'utf8').trim(), readFileSync(`/proc/${pid}/cmdline`, 'utf8')))
        .map((pid) => readlinkSync(`/proc/${pid}/ns/ipc`));
    const [xvfbIpc] = ipcOf((comm) => comm === 'Xvfb');
    const [videoIpc] = ipcOf((comm, cmdline) => comm === 'ffmpeg' && cmdline.includes('x11grab'));
    const [audioIpc] = ipcOf((comm, cmdline) => comm === 'ffmpeg' && cmdline.includes('pulse'));
    const [gameIpc] = ipcOf((comm) => comm === 'x11-probe');
    expect(xvfbIpc).toMatch(/^ipc:\[\d+\]$/);
    expect(videoIpc).toBe(xvfbIpc!);
    for (const other of [audioIpc, gameIpc, readlinkSync('/proc/self/ns/ipc')]) expect(other).not.toBe(xvfbIpc!);
    // Audio: Opus from the session's sink (silence here), 50 packets a second once PulseAudio delivers.
    await waitUntil(() => player.audio.packets >= 25, 'audio packets');
    console.log(
      `offer ${offerMs.toFixed(0)} ms after create; connected ${connectMs.toFixed(0)} ms after the answer; first video packet ${firstFrameMs.toFixed(0)} ms after connecting; ${frameRate.toFixed(1)} fps (${width}x${height} at ${fps}); ${player.audio.packets} audio packets`,
    );

    // Input from the data channel into the game (it logs its events in its home).
    await waitUntil(() => readEvents(created.session).includes('focus_in'), 'the game window focused');
    player.send({ type: 'mouseMove', x: 320, y: 240 }); // inside the probe's 640x480 window
    player.send({ type: 'mouseDown', button: 1 });
    player.send({ type: 'mouseUp', button: 1 });
    player.channel!.send(Buffer.from([77, 1, 2])); // malformed: ignored
    // A ping comes back unchanged on the same channel; a ping of the wrong length is ignored like any malformed message.
    player.channel!.send(Buffer.from([6, 0, 1]));
    player.channel!.send(Buffer.from(encodePing(0xdeadbeef)));
    player.send({ type: 'keyDown', key: 57 }); // space
    player.send({ type: 'keyUp', key: 57 });
    await waitUntil(() => readEvents(created.session).includes('key_up 65'), 'the keys in the game');
    await waitUntil(() => player.received.length > 0, 'the ping echoed');
    expect(player.received).toEqual([[6, 0xde, 0xad, 0xbe, 0xef]]);
    expect(readEvents(created.session).filter((line) => !['mapped', 'focus_in'].includes(line))).toEqual([
      'motion 320 240',
      'button_down 1 320 240',
      'button_up 1',
      'key_down 65',
      'key_up 65',
    ]);
    // The sandbox held: no network, no write outside its home.
    const checks = readFileSync(join(sessionHome(created.session), 'checks.txt'), 'utf8');
    expect(checks).toMatch(/^net failed/m);
    expect(checks).toContain('write /usr/escape refused');

    // The player stops: the server says stop, the agent ends everything and removes the folder.
    const stop = await server.fetch('/api/cloud-play/session/stop', { method: 'POST', json: { token: created.token } });
    expect(stop.status).toBe(200);
    await agent.waitForLog(new RegExp(`session ${created.session}: ended \\(stopped\\)`));
    expect(existsSync(join(agent.workDir, 'sessions', created.session))).toBe(false);
    expect((await sessionState(created.token)).status).toBe('ended');
    await player.close();
  }, 60_000);

  test('the second session of a build fetches nothing; the game quitting ends the session as game_exited', async () => {
    const { created, player } = await playSession(probeGame.id);
    await agent.waitForLog(new RegExp(`session ${created.session}: package ready in \\d+ ms \\(0 chunks fetched in 0 requests, \\d+ cached\\)`));
    await waitUntil(() => readEvents(created.session).includes('focus_in'), 'the game window focused');
    player.send({ type: 'keyDown', key: 1 }); // Escape: the probe quits
    expect(await waitForState(created.token, ['ended', 'errored'])).toEqual({ status: 'ended', reason: 'game_exited' });
    await player.close();
  }, 60_000);

  test('the peer going away ends the session as peer_left', async () => {
    const { created, player } = await playSession(probeGame.id);
    await player.close();
    const state = await waitForState(created.token, ['ended', 'errored'], 30_000);
    expect(state).toEqual({ status: 'ended', reason: 'peer_left' });
  }, 60_000);

  test('two sessions at once on their own displays (capacity 2); a third waits for a free slot', async () => {
    // One live session per user: two more players, members of the project with cloud_play.
    const players: TestUser[] = [];
    for (let i = 0; i < 2; i++) {
      const user = await registerUser(server);
      await grantPrivilege(server, user, 'cloud_play');
      await addMember(server, project, user, 'tester');
      players.push(user);
    }
    const [a, b] = await Promise.all([playSession(probeGame.id, admin), playSession(probeGame.id, players[0])]);
    const displayOf = async (session: string) => Number(/on display :(\d+)/.exec(await agent.waitForLog(new RegExp(`session ${session}: starting`)))![1]);
    expect(await displayOf(a.created.session)).not.toBe(await displayOf(b.created.session));
    await waitUntil(() => a.player.video.frames > 5 && b.player.video.frames > 5, 'video on both');
    // Input goes to its own session only.
    await waitUntil(() => readEvents(a.created.session).includes('focus_in') && readEvents(b.created.session).includes('focus_in'), 'both windows focused');
    a.player.send({ type: 'keyDown', key: 30 });
    await waitUntil(() => readEvents(a.created.session).includes('key_down 38'), 'the key in session a');
    expect(readEvents(b.created.session)).not.toContain('key_down 38');

    const third = await createSession(probeGame.id, players[1]);
    await Bun.sleep(1000);
    expect((await sessionState(third.token)).status).toBe('waiting');
    await server.fetch('/api/cloud-play/session/stop', { method: 'POST', json: { token: a.created.token } });
    await waitForOffer(third.token);
    for (const token of [b.created.token, third.token]) await server.fetch('/api/cloud-play/session/stop', { method: 'POST', json: { token } });
    await waitForState(third.token, ['ended']);
    await Promise.all([a.player.close(), b.player.close()]);
  }, 60_000);

  test('a game that fails at once errors its session; the agent serves the next one', async () => {
    const broken = await uploadPackage(server, admin, project.id, { 'start.sh': '#!/bin/sh\necho "no such library" >&2\nexit 3\n' }, { tags: linux, entrypoint: ['start.sh'] });
    const created = await createSession(broken.id);
    const state = await waitForState(created.token, ['ended', 'errored']);
    expect(state.status).toBe('errored');
    expect(state.reason).toContain('exit code 3');
    expect(state.reason).toContain('no such library');
    const next = await playSession(probeGame.id);
    await server.fetch('/api/cloud-play/session/stop', { method: 'POST', json: { token: next.created.token } });
    await waitForState(next.created.token, ['ended']);
    await next.player.close();
  }, 60_000);

  test('SIGTERM ends every session (machine_shutdown), removes their folders and exits 0', async () => {
    const { created, player } = await playSession(probeGame.id);
    const code = await agent.stop('SIGTERM');
    expect(code).toBe(0);
    expect(await sessionState(created.token)).toEqual({ status: 'ended', reason: 'machine_shutdown' });
    expect(agent.logs.join('\n')).not.toContain(machineToken);
    expect(agent.logs.join('\n')).not.toMatch(/\/api\/files\/[^/\s]+\/[^/\s]+\/\d+\//);
    await player.close();
    // A fresh agent for the tests after this one (same server).
    agent = await startCloudAgent({ server: server.url, token: machineToken, capacity: 2 });
    await agent.waitForLog(/connected to the server/);
  }, 60_000);
});

/** Processes whose parent is `pid` (the agent's own programs: Xvfb, PulseAudio, encoders, the sandbox). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        // Field 4 of /proc/PID/stat is the parent; the name (field 2) may hold spaces, so read after its ')'.
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

test('an agent killed outright (SIGKILL) leaves none of its programs running; its next start unmounts what it left', async () => {
  const killedDir = mkdtempSync(join(tmpdir(), 'cloudhost-killed-'));
  // Display numbers no other agent of the machine uses (others' lock files would say nothing of this one).
  const displayBase = 3000 + Math.floor(Math.random() * 20_000);
  const displayArgs = ['--display-base', String(displayBase)];
  const killed = await startCloudAgent({ server: server.url, token: machineToken, capacity: 1, workDir: killedDir, args: displayArgs });
  const previous = agent;
  agent = killed;
  let next: RunningCloudAgent | undefined;
  try {
    await killed.waitForLog(/connected to the server/);
    // The shared agent leaves the queue to this one while it plays.
    await previous.stop('SIGTERM');
    // Its shutdown said capacity 0 for the machine both agents share; a session needs a machine online,
    // which this one's next call (within a heartbeat) says again.
    const deadline = Date.now() + 20_000;
    while (!((await (await server.fetch('/api/cloud-play/availability')).json()) as { machineOnline: boolean }).machineOnline && Date.now() < deadline) await Bun.sleep(100);
    const { player } = await playSession(probeGame.id);
    // Its display leaves nothing on the host: no lock file, no socket in /tmp, no abstract socket.
    const display = Number(/on display :(\d+)/.exec(await killed.waitForLog(/starting .* on display :\d+/))![1]);
    expect(existsSync(`/tmp/.X${display}-lock`) || existsSync(`/tmp/.X11-unix/X${display}`) || displayInUse(display)).toBe(false);
    expect(displayBase).toBe(display);
    const programs = childrenOf(killed.process.pid!);
    expect(programs.length).toBeGreaterThanOrEqual(4);
    expect(processesOfUids(killed.uidBase, 128).length).toBeGreaterThanOrEqual(4);
    await killed.stop('SIGKILL');
    await waitUntil(() => programs.every((pid) => !existsSync(`/proc/${pid}`)), 'every program of the killed agent gone', 10_000);
    await waitUntil(() => processesOfUids(killed.uidBase, 128).length === 0, 'every process of the killed agent’s users gone', 10_000);
    await player.close();
    // Its session's tmpfs stays mounted until an agent starts on the same work dir.
    expect(killed.leftoverMounts.length).toBe(1);
    next = await startCloudAgent({ server: server.url, token: machineToken, capacity: 1, workDir: killedDir, args: displayArgs });
    await next.waitForLog(/unmounted 1 session folder\(s\) an earlier run left/);
    await next.waitForLog(/connected to the server/);
    // The same display number again: nothing of the killed one's is left to push it along.
    const again = await createSession(probeGame.id);
    expect(Number(/on display :(\d+)/.exec(await next.waitForLog(new RegExp(`session ${again.session}: starting .* on display :\\d+`)))![1])).toBe(display);
    await server.fetch('/api/cloud-play/session/stop', { method: 'POST', json: { token: again.token } });
    await next.waitForLog(new RegExp(`session ${again.session}: (ended|errored)`));
    await next.stop('SIGTERM');
    expect(next.leftoverMounts).toEqual([]);
    expect(readdirSync(join(killedDir, 'sessions'))).toEqual([]);
    rmSync(killedDir, { recursive: true, force: true });
  } finally {
    // A failed step above must not leave either agent running (with its sessions), nor their mounts.
    await killed.stop('SIGKILL');
    await next?.stop('SIGKILL');
    for (const point of mountsBelow(killedDir)) spawnSync('umount', ['--lazy', point]);
    rmSync(killedDir, { recursive: true, force: true });
    agent = await startCloudAgent({ server: server.url, token: machineToken, capacity: 2 });
    await agent.waitForLog(/connected to the server/);
  }
}, 60_000);

describe('the host agent and an unreachable server', () => {
  test('it backs off, reconnects and then serves sessions', async () => {
    const proxy = startTestProxy(server.url);
    proxy.fail('POST', /\/cloud-play\/machine\/provide$/, 2);
    const other = await server.trpc(admin.token).admin.cloudMachines.create.mutate({ title: 'Flaky link' });
    const flaky = await startCloudAgent({ server: proxy.url, token: other.token, capacity: 1 });
    try {
      await flaky.waitForLog(/cannot reach the server .*trying again in 1 s/);
      await flaky.waitForLog(/connected to the server/, 20_000);
      expect(flaky.logs.join('\n')).not.toContain(other.token);
    } finally {
      expect(await flaky.stop('SIGTERM')).toBe(0);
      proxy.stop();
    }
  }, 60_000);

  test('a revoked token is refused and said so, without the token', async () => {
    const other = await server.trpc(admin.token).admin.cloudMachines.create.mutate({ title: 'Revoked' });
    await server.trpc(admin.token).admin.cloudMachines.revoke.mutate({ machine: other.machine.id });
    const refused = await startCloudAgent({ server: server.url, token: other.token, capacity: 1 });
    try {
      await refused.waitForLog(/refused the machine token/);
      expect(refused.logs.join('\n')).not.toContain(other.token);
    } finally {
      await refused.stop('SIGTERM');
    }
  }, 30_000);
});

test('no session leaves a process, a mount or a folder behind', async () => {
  await agent.stop('SIGTERM');
  // Every process of a session runs as one of the agent's uids (its game, its servers, its encoders).
  expect(processesOfUids(agent.uidBase, 128)).toEqual([]);
  expect(agent.leftoverMounts).toEqual([]);
});
