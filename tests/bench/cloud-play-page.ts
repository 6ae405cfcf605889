/**
 * What bench:cloud-play runs inside the cloud-play page (tests/bench/cloud-play.ts). Each export is a
 * self-contained function handed to playwright (page.addInitScript / page.evaluate): no imports or
 * module values inside. The app itself is not changed: the probe wraps RTCPeerConnection before any
 * page script runs, so it sees the session's connection, tracks and `input` data channel as the app
 * makes them, and a capture-phase keydown listener on window sees every key before the app does.
 */

/** The frame layout of the benchmark's game (tests/cloudhost/fixtures/colour-game.c, animated). */
export type GameLayout = {
  width: number;
  height: number;
  /** Where the colour is read (a quarter in from the corner: the X cursor sits in the middle). */
  colour: { x: number; y: number };
  /** The row through the clock strip and the x of each of its 24 cells, most significant first. */
  clock: { y: number; xs: number[] };
};

export function gameLayout(width: number, height: number): GameLayout {
  const cell = Math.floor(width / 26);
  const strip = Math.floor(height / 18);
  return {
    width,
    height,
    colour: { x: Math.floor(width / 4), y: Math.floor(height / 4) },
    clock: { y: height - Math.ceil(strip / 2), xs: Array.from({ length: 24 }, (_, bit) => (bit + 1) * cell + Math.floor(cell / 2)) },
  };
}

export type StartFigures = {
  /** Start pressed → first requestVideoFrameCallback of the session's video, ms. */
  firstFrameMs: number;
  /** Start → the page made its RTCPeerConnection (it had the agent's offer), ms. */
  offerMs: number;
  /** Start → connection 'connected', ms. */
  connectedMs: number;
  /** Start → the video track, ms. */
  trackMs: number;
  width: number;
  height: number;
};

export type MonitorSnapshot = {
  at: number;
  /** requestVideoFrameCallback's presentedFrames of the latest callback. */
  presented: number;
  callbacks: number;
  /** inbound-rtp video of getStats. */
  framesDecoded: number;
  framesDropped: number;
  packetsLost: number;
  jitterBufferDelay: number;
  jitterBufferEmittedCount: number;
  totalDecodeTime: number;
  /** Frames whose clock strip read back as no plausible time (decoding blur, a frame torn by the grab). */
  badClocks: number;
};

/** Installed before any page script: wraps RTCPeerConnection and watches keys (see the file comment). */
export const installProbe = () => {
  type Probe = Record<string, unknown> & { marks: Record<string, number> };
  const Native = window.RTCPeerConnection;
  const probe: Probe = { native: Native, marks: {} };
  (window as unknown as { __cloudBench: Probe }).__cloudBench = probe;
  class ProbedPeer extends Native {
    constructor(config?: RTCConfiguration) {
      super(config);
      probe.pc = this;
      probe.channel = undefined;
      probe.marks.peer ??= performance.now();
      this.addEventListener('datachannel', (event) => {
        if (event.channel.label !== 'input') return;
        event.channel.binaryType = 'arraybuffer';
        probe.channel = event.channel;
      });
      this.addEventListener('track', (event) => {
        probe.marks[event.track.kind] ??= performance.now();
      });
      this.addEventListener('connectionstatechange', () => {
        if (this.connectionState === 'connected') probe.marks.connected ??= performance.now();
      });
    }
  }
  window.RTCPeerConnection = ProbedPeer;
  window.addEventListener(
    'keydown',
    (event) => {
      if (event.repeat) return;
      (probe.onKey as ((stamp: number) => void) | undefined)?.(event.timeStamp);
    },
    true,
  );
};

/** Presses Start (a button labelled one of `labels`) and resolves at the first decoded frame of the session's video. */
export const startToFirstFrame = async (labels: string[]): Promise<StartFigures> => {
  const probe = (window as unknown as { __cloudBench: { marks: Record<string, number> } }).__cloudBench;
  const video = document.querySelector<HTMLVideoElement>('.cloud_play_video');
  const button = [...document.querySelectorAll<HTMLButtonElement>('.cloud_play_controls button')].find((element) => labels.includes(element.textContent?.trim() ?? ''));
  if (!video || !button) throw new Error('no video element or no Start button on the page');
  probe.marks = {};
  const first = new Promise<{ at: number; width: number; height: number }>((resolve) => {
    video.requestVideoFrameCallback((_now, metadata) => resolve({ at: performance.now(), width: metadata.width, height: metadata.height }));
  });
  const startedAt = performance.now();
  button.click();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const frame = await Promise.race([
    first,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no video frame within 60 s of Start')), 60_000);
    }),
  ]);
  clearTimeout(timer);
  const since = (mark: number | undefined) => (mark === undefined ? Number.NaN : mark - startedAt);
  return {
    firstFrameMs: frame.at - startedAt,
    offerMs: since(probe.marks.peer),
    connectedMs: since(probe.marks.connected),
    trackMs: since(probe.marks.video),
    width: frame.width,
    height: frame.height,
  };
};

/**
 * One frame's path in wall-clock ms (Date.now(), the CLOCK_REALTIME the game writes too): `received`
 * the browser had its last packet (requestVideoFrameCallback's receiveTime), `presented` it was
 * decoded and handed to the compositor (presentationTime), `callback` the page's callback ran.
 */
export type FrameTimes = { received: number; presented: number; callback: number };
/** A frame's times less the moment the game drew it (its clock strip), and that moment (`drawn`, wall-clock ms). */
export type FrameAge = FrameTimes & { drawn: number };
/**
 * One key: keydown's timeStamp → the first frame of another colour (`frame`, as wall-clock ms); how
 * long the browser took to hand the keydown to the page's first listener; when that listener ran
 * (`keyWall`); glass to glass to the frame's presentation and to the page's callback.
 */
export type GlassSample = { presentedMs: number; callbackMs: number; dispatchMs: number; keyWall: number; frame: FrameTimes };

/**
 * From now on, every decoded frame of the session's video (requestVideoFrameCallback) is read back
 * through a canvas: the colour pixel and the game's clock strip. A frame whose colour differs from
 * the one shown when a key went down ends that key's glass-to-glass time; the clock strip gives the
 * picture's age at each stage (the game drew it at that CLOCK_REALTIME ms).
 */
export const startMonitor = (layout: GameLayout) => {
  type Monitor = {
    running: boolean;
    callbacks: number;
    presented: number;
    colour: number[] | undefined;
    pendingKey: { stamp: number; handlerAt: number; wall: number } | undefined;
    keyColour: number[] | undefined;
    glass: GlassSample[];
    ages: FrameAge[];
    badClocks: number;
  };
  const probe = (window as unknown as { __cloudBench: Record<string, unknown> }).__cloudBench;
  const video = document.querySelector<HTMLVideoElement>('.cloud_play_video')!;
  const canvas = document.createElement('canvas');
  canvas.width = layout.width;
  canvas.height = 2;
  const context = canvas.getContext('2d', { willReadFrequently: true })!;
  const monitor: Monitor = { running: true, callbacks: 0, presented: 0, colour: undefined, pendingKey: undefined, keyColour: undefined, glass: [], ages: [], badClocks: 0 };
  // One monitor at a time: an earlier one (a session before) stops reading frames.
  const earlier = probe.monitor as Monitor | undefined;
  if (earlier) earlier.running = false;
  probe.monitor = monitor;
  probe.onKey = (stamp: number) => {
    if (monitor.pendingKey !== undefined || !monitor.colour) return;
    monitor.pendingKey = { stamp, handlerAt: performance.now(), wall: Date.now() };
    monitor.keyColour = monitor.colour;
  };
  const wrap = 2 ** 24;
  const step = (_now: number, metadata: VideoFrameCallbackMetadata) => {
    if (!monitor.running) return;
    const at = performance.now();
    const wall = Date.now();
    const toWall = (time: number | undefined) => (time === undefined ? Number.NaN : wall - (at - time));
    // receiveTime: WebRTC frames only (the frame's last packet); both in the performance.now() time base.
    const frame: FrameTimes = { received: toWall(metadata.receiveTime), presented: toWall(metadata.presentationTime), callback: wall };
    context.drawImage(video, 0, layout.clock.y, layout.width, 1, 0, 0, layout.width, 1);
    context.drawImage(video, layout.colour.x, layout.colour.y, 1, 1, 0, 1, 1, 1);
    const data = context.getImageData(0, 0, layout.width, 2).data;
    const offset = layout.width * 4;
    const colour = [data[offset]!, data[offset + 1]!, data[offset + 2]!];
    let stamp = 0;
    for (const x of layout.clock.xs) stamp = stamp * 2 + (data[x * 4]! + data[x * 4 + 1]! + data[x * 4 + 2]! > 384 ? 1 : 0);
    const age = ((((wall % wrap) - stamp) % wrap) + wrap) % wrap;
    if (age < 5000) {
      const drawn = wall - age;
      monitor.ages.push({ received: frame.received - drawn, presented: frame.presented - drawn, callback: age, drawn });
    } else {
      monitor.badClocks += 1;
    }
    monitor.callbacks += 1;
    monitor.presented = metadata.presentedFrames;
    const key = monitor.pendingKey;
    if (key && monitor.keyColour && colour.some((value, channel) => Math.abs(value - monitor.keyColour![channel]!) > 60)) {
      monitor.glass.push({ presentedMs: metadata.presentationTime - key.stamp, callbackMs: at - key.stamp, dispatchMs: key.handlerAt - key.stamp, keyWall: key.wall, frame });
      monitor.pendingKey = undefined;
    }
    monitor.colour = colour;
    video.requestVideoFrameCallback(step);
  };
  video.requestVideoFrameCallback(step);
};

/** The monitor's counters and the connection's inbound video statistics, now. */
export const monitorSnapshot = async (): Promise<MonitorSnapshot> => {
  const probe = (window as unknown as { __cloudBench: { pc: RTCPeerConnection; monitor: { presented: number; callbacks: number; badClocks: number } } }).__cloudBench;
  const stats = await probe.pc.getStats();
  let video: Record<string, number> = {};
  stats.forEach((report: Record<string, unknown>) => {
    if (report.type === 'inbound-rtp' && report.kind === 'video') video = report as Record<string, number>;
  });
  return {
    at: performance.now(),
    presented: probe.monitor.presented,
    callbacks: probe.monitor.callbacks,
    framesDecoded: video.framesDecoded ?? 0,
    framesDropped: video.framesDropped ?? 0,
    packetsLost: video.packetsLost ?? 0,
    jitterBufferDelay: video.jitterBufferDelay ?? 0,
    jitterBufferEmittedCount: video.jitterBufferEmittedCount ?? 0,
    totalDecodeTime: video.totalDecodeTime ?? 0,
    badClocks: probe.monitor.badClocks,
  };
};

/** Takes (and clears) what the monitor collected: picture ages and glass-to-glass samples. */
export const takeMonitorSamples = (): { ages: FrameAge[]; glass: GlassSample[] } => {
  const monitor = (window as unknown as { __cloudBench: { monitor: { ages: FrameAge[]; glass: GlassSample[] } } }).__cloudBench.monitor;
  const taken = { ages: monitor.ages, glass: monitor.glass };
  monitor.ages = [];
  monitor.glass = [];
  return taken;
};

/**
 * Round trips on a data channel of the page, one at a time: each message is sent and the next waits
 * for its echo (checked byte for byte), timed with performance.now(). `channel`: the session's
 * `input` channel (the agent's echo) or the baseline's `echo` channel.
 */
export const timeRoundTrips = async ({ channel: which, messages }: { channel: 'input' | 'echo'; messages: number[][] }): Promise<number[]> => {
  const probe = (window as unknown as { __cloudBench: { channel?: RTCDataChannel; echoChannel?: RTCDataChannel } }).__cloudBench;
  const channel = which === 'input' ? probe.channel : probe.echoChannel;
  if (!channel || channel.readyState !== 'open') throw new Error(`the ${which} channel is not open`);
  channel.binaryType = 'arraybuffer';
  const times: number[] = [];
  for (const bytes of messages) {
    const message = new Uint8Array(bytes);
    const echo = await new Promise<{ data: Uint8Array; ms: number }>((resolve, reject) => {
      const timer = setTimeout(() => {
        channel.removeEventListener('message', onMessage);
        reject(new Error(`no echo on the ${which} channel within 2 s`));
      }, 2000);
      const onMessage = (event: MessageEvent) => {
        const ms = performance.now() - sentAt;
        clearTimeout(timer);
        channel.removeEventListener('message', onMessage);
        resolve({ data: new Uint8Array(event.data as ArrayBuffer), ms });
      };
      channel.addEventListener('message', onMessage);
      const sentAt = performance.now();
      channel.send(message);
    });
    if (echo.data.length !== message.length || echo.data.some((value, index) => value !== message[index])) {
      throw new Error(`the ${which} channel answered [${[...echo.data].join(',')}] to [${[...message].join(',')}]`);
    }
    times.push(echo.ms);
  }
  return times;
};

/**
 * The baseline's page side: answers an offer carrying an `echo` data channel with a plain
 * RTCPeerConnection (not the probed one), every candidate in the answer (no trickle).
 */
export const answerEchoOffer = async (offer: { type: 'offer'; sdp: string }): Promise<string> => {
  const probe = (window as unknown as { __cloudBench: { native: typeof RTCPeerConnection; echoPeer?: RTCPeerConnection; echoChannel?: RTCDataChannel } }).__cloudBench;
  probe.echoPeer?.close();
  const peer = new probe.native({ iceServers: [] });
  probe.echoPeer = peer;
  peer.addEventListener('datachannel', (event) => {
    event.channel.binaryType = 'arraybuffer';
    probe.echoChannel = event.channel;
  });
  await peer.setRemoteDescription(offer);
  await peer.setLocalDescription(await peer.createAnswer());
  if (peer.iceGatheringState !== 'complete') {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 3000);
      peer.addEventListener('icegatheringstatechange', () => {
        if (peer.iceGatheringState !== 'complete') return;
        clearTimeout(timer);
        resolve();
      });
    });
  }
  return peer.localDescription!.sdp;
};

/** Resolves once the baseline's echo channel is open (or throws after 15 s). */
export const echoChannelOpen = async (): Promise<void> => {
  const probe = (window as unknown as { __cloudBench: { echoChannel?: RTCDataChannel } }).__cloudBench;
  const deadline = performance.now() + 15_000;
  while (probe.echoChannel?.readyState !== 'open') {
    if (performance.now() > deadline) throw new Error('the baseline echo channel did not open within 15 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

export const closeEchoPeer = () => {
  const probe = (window as unknown as { __cloudBench: { echoPeer?: RTCPeerConnection; echoChannel?: RTCDataChannel } }).__cloudBench;
  probe.echoPeer?.close();
  probe.echoPeer = undefined;
  probe.echoChannel = undefined;
};
