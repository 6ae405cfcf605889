import { networkInterfaces } from 'node:os';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { MachineWork } from '../../../src/shared/schemas/cloud-play.ts';
import { createCloudAgentClient, type CloudAgentClient } from '../../support/cloud-agent-client.ts';

/**
 * A host agent stood in for by a Chromium page, to test the cloud-play page's WebRTC side without
 * Xvfb and ffmpeg: the provide protocol goes through the scripted client (cloud-agent-client.ts), the
 * peer is the page's RTCPeerConnection with a canvas as the game's picture (its colour changes on each
 * key press and mouse click received on the `input` data channel) and an oscillator as its sound.
 * The real agent (cloudhost/) has its own tests.
 */
export type BrowserAgent = {
  client: CloudAgentClient;
  page: Page;
  /** The input messages received so far, decoded by the page ([code, ...values]). */
  received(): Promise<number[][]>;
  /** Takes the next session: start → offer → the player's answer → playing. */
  serveNextSession(): Promise<string>;
  /** Waits for the server to hand over a stop of the session; its reason. */
  waitForStop(session: string, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
};

/** The machine's own IPv4 address: Chromium names its host candidates with mDNS, which nothing here resolves. */
function hostAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  return '127.0.0.1';
}

const peerScript = () => {
  type Win = typeof window & Record<string, unknown>;
  const win = window as Win;
  const colours = ['rgb(220, 30, 30)', 'rgb(30, 200, 60)', 'rgb(40, 80, 230)', 'rgb(240, 220, 40)'];
  const canvas = document.createElement('canvas');
  canvas.width = 640;
  canvas.height = 360;
  document.body.append(canvas);
  const context = canvas.getContext('2d')!;
  let colour = 0;
  let frame = 0;
  const received: number[][] = [];
  win.received = received;
  setInterval(() => {
    context.fillStyle = colours[colour % colours.length]!;
    context.fillRect(0, 0, canvas.width, canvas.height);
    // A moving square: every frame differs, so the stream never stalls.
    context.fillStyle = '#000';
    context.fillRect((frame++ * 4) % canvas.width, 0, 8, 8);
  }, 33);
  const picture = canvas.captureStream(30);
  const audio = new AudioContext();
  const tone = audio.createOscillator();
  const sound = audio.createMediaStreamDestination();
  tone.frequency.value = 440;
  tone.connect(sound);
  tone.start();
  let peer: RTCPeerConnection | undefined;
  win.makeOffer = async (host: string) => {
    peer = new RTCPeerConnection({ iceServers: [] });
    for (const track of [...picture.getVideoTracks(), ...sound.stream.getAudioTracks()]) peer.addTrack(track, picture);
    const channel = peer.createDataChannel('input', { ordered: true });
    channel.binaryType = 'arraybuffer';
    channel.onmessage = (event) => {
      const bytes = new Uint8Array(event.data as ArrayBuffer);
      const view = new DataView(bytes.buffer);
      const code = bytes[0]!;
      received.push(code === 3 ? [3, view.getUint16(1), view.getUint16(3)] : code <= 1 ? [code, view.getUint16(1)] : [code, bytes[1]!]);
      // Key down and mouse down change the game's colour.
      if (code === 0 || code === 4) colour++;
    };
    await peer.setLocalDescription(await peer.createOffer());
    await new Promise<void>((resolve) => {
      if (peer!.iceGatheringState === 'complete') return resolve();
      peer!.addEventListener('icegatheringstatechange', () => peer!.iceGatheringState === 'complete' && resolve());
      setTimeout(resolve, 3000);
    });
    const sdp = peer.localDescription!.sdp.replace(/[0-9a-f-]+\.local/g, host);
    return JSON.stringify({ type: 'offer', sdp });
  };
  win.acceptAnswer = async (sdp: string) => {
    await peer!.setRemoteDescription({ type: 'answer', sdp });
  };
  win.connectionState = () => peer?.connectionState ?? 'none';
};

export async function startBrowserAgent(browser: Browser, baseURL: string, machineToken: string): Promise<BrowserAgent> {
  const context: BrowserContext = await browser.newContext({ baseURL });
  const page = await context.newPage();
  // Any page of the app's origin (a secure context on localhost); the app itself is not used.
  await page.goto('/no-such-page-agent', { waitUntil: 'domcontentloaded' });
  await page.evaluate(peerScript);
  const client = createCloudAgentClient(baseURL, machineToken, { capacity: 1, agentVersion: 'browser-agent/1' });
  /** Work handed over by any provide call (these and the heartbeat's), until a step takes it. */
  const pending: MachineWork[] = [];
  // Online from the start, as the real agent is (the pages offer Play in cloud only while a machine is).
  pending.push(...(await client.provide()).work);
  const beat = () =>
    void client
      .provide()
      .then((reply) => pending.push(...reply.work))
      .catch(() => undefined);
  // Keep the machine alive (and the sessions' heartbeats) while the test runs.
  const heartbeat = setInterval(beat, 500);
  const work = async (kind: MachineWork['kind'], session?: string, timeoutMs = 10_000): Promise<MachineWork> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = pending.findIndex((item) => item.kind === kind && (!session || item.session === session));
      if (found >= 0) return pending.splice(found, 1)[0]!;
      if (Date.now() > deadline) throw new Error(`the browser agent got no ${kind} work in ${timeoutMs} ms`);
      // Short polls: the heartbeat's calls may take the work meanwhile (it lands in pending too).
      pending.push(...(await client.provideUntilWork(200)));
    }
  };
  return {
    client,
    page,
    received: () => page.evaluate(() => (window as unknown as { received: number[][] }).received.slice()),
    async serveNextSession() {
      const start = await work('start');
      const session = start.session;
      client.report(session, 'preparing');
      const offer = await page.evaluate((host) => (window as unknown as { makeOffer(host: string): Promise<string> }).makeOffer(host), hostAddress());
      client.report(session, 'offered', { offer });
      await client.provide();
      const answer = (await work('answer', session)) as Extract<MachineWork, { kind: 'answer' }>;
      await page.evaluate((sdp) => (window as unknown as { acceptAnswer(sdp: string): Promise<void> }).acceptAnswer(sdp), answer.sdp);
      client.report(session, 'playing');
      await client.provide();
      return session;
    },
    async waitForStop(session, timeoutMs = 10_000) {
      const stop = (await work('stop', session, timeoutMs)) as Extract<MachineWork, { kind: 'stop' }>;
      client.report(session, 'ended', { reason: stop.reason });
      await client.provide().catch(() => undefined);
      return stop.reason;
    },
    async close() {
      clearInterval(heartbeat);
      await context.close();
    },
  };
}
