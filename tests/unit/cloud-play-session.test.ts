import { describe, expect, test } from 'bun:test';
import { ApiError } from '../../src/shared/api/errors.ts';
import { cloudPlayRetryMs, type CloudSessionState, type CreatedCloudSession } from '../../src/shared/schemas/cloud-play.ts';
import { cloudPlayReducer, initialCloudPlayStatus, type CloudPlayEvent, type CloudPlayStatus } from '../../src/client/cloud-play/machine.ts';
import { CloudPlayRunner, initWithRetry, isTimeoutError, isUnreachable, parseOffer, whileUnreachable, type CloudPlayApi } from '../../src/client/cloud-play/session.ts';

/**
 * The page's session flow (spec §4) against a fake API and a fake RTCPeerConnection: create → init
 * asked again every 1000 ms (spec §9) only while it answers timeout → answer → connect → playing when
 * the connection is connected → watched until it ends; Stop, leaving and failures.
 */

const offerText = JSON.stringify({ type: 'offer', sdp: 'v=0 offer' });
const created: CreatedCloudSession = {
  session: 's1',
  token: 'cp_token',
  iceServers: [{ urls: 'stun:stun.example.com:3478' }],
  settings: { width: 1280, height: 720, fps: 60, idleSeconds: 300, maxSeconds: 3600 },
};

const timeout = () => new ApiError('timeout', 'Waiting for a free machine', { status: 503 });

class FakePeer extends EventTarget {
  connectionState: RTCPeerConnectionState = 'new';
  iceGatheringState: RTCIceGatheringState = 'new';
  localDescription: { type: string; sdp: string } | null = null;
  remote: RTCSessionDescriptionInit | undefined;
  closed = false;

  constructor(readonly config: RTCConfiguration) {
    super();
  }

  async setRemoteDescription(description: RTCSessionDescriptionInit) {
    this.remote = description;
  }
  async createAnswer() {
    return { type: 'answer' as const, sdp: 'v=0 answer' };
  }
  async setLocalDescription(description: RTCSessionDescriptionInit) {
    this.localDescription = { type: 'answer', sdp: `${description.sdp}` };
    // Gathering completes a moment later; the answer must wait for it (nothing trickles).
    setTimeout(() => {
      this.iceGatheringState = 'complete';
      this.localDescription = { type: 'answer', sdp: `${description.sdp} a=candidate:1` };
      this.dispatchEvent(new Event('icegatheringstatechange'));
    }, 5);
  }
  close() {
    this.closed = true;
    this.connectionState = 'closed';
  }
  setConnection(state: RTCPeerConnectionState) {
    this.connectionState = state;
    this.dispatchEvent(new Event('connectionstatechange'));
  }
  announceChannel(label: string) {
    const channel = Object.assign(new EventTarget(), { label, readyState: 'open' });
    this.dispatchEvent(Object.assign(new Event('datachannel'), { channel }));
    return channel;
  }
  announceTrack(kind: string) {
    const track = { kind, id: `${kind}-1` };
    this.dispatchEvent(Object.assign(new Event('track'), { track, streams: [] }));
    return track;
  }
}

type Call = { name: string; args: unknown[] };

/** A controllable clock: every sleep waits until the test releases it. */
class Clock {
  waits: { ms: number; resolve: () => void; reject: (reason: unknown) => void }[] = [];
  sleep = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const wait = { ms, resolve, reject };
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      this.waits.push(wait);
    });
  get pending() {
    return this.waits.length;
  }
  /** Releases the oldest sleep; its duration. */
  async tick(): Promise<number> {
    await settle();
    const wait = this.waits.shift();
    if (!wait) throw new Error('nothing is sleeping');
    wait.resolve();
    await settle();
    return wait.ms;
  }
}

async function settle(): Promise<void> {
  for (let index = 0; index < 5; index++) await new Promise((resolve) => setTimeout(resolve, 2));
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let index = 0; index < 200; index++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const offline = () => new ApiError('network', 'Failed to fetch');
/** A proxy's own error page while the server behind it restarts (not JSON: http_<status>). */
const proxyError = (status: 502 | 503 | 504) => new ApiError(`http_${status}`, `HTTP ${status}`, { status, body: '<html>Bad Gateway</html>' });

type Script = {
  create?: () => Promise<CreatedCloudSession>;
  /** Answers of init in order; the last one repeats. */
  init?: (() => Promise<unknown>)[];
  state?: () => Promise<CloudSessionState>;
  /** Answers of connect in order; the last one repeats. */
  connect?: (() => Promise<unknown>)[];
  stop?: () => Promise<unknown>;
};

function harness(script: Script = {}) {
  const calls: Call[] = [];
  const events: CloudPlayEvent[] = [];
  const peers: FakePeer[] = [];
  const tracks: unknown[] = [];
  const channels: unknown[] = [];
  let runEnds = 0;
  let status: CloudPlayStatus = initialCloudPlayStatus;
  const clock = new Clock();
  const inits = [...(script.init ?? [async () => offerText])];
  const connects = [...(script.connect ?? [async () => ({ ok: true })])];
  const api: CloudPlayApi = {
    create: async () => {
      calls.push({ name: 'create', args: [] });
      return (script.create ?? (async () => created))();
    },
    init: async (token) => {
      calls.push({ name: 'init', args: [token] });
      const next = inits.length > 1 ? inits.shift()! : inits[0]!;
      return next();
    },
    connect: async (token, sdp) => {
      calls.push({ name: 'connect', args: [token, sdp] });
      const next = connects.length > 1 ? connects.shift()! : connects[0]!;
      return next();
    },
    state: async (token) => {
      calls.push({ name: 'state', args: [token] });
      return (script.state ?? (async () => ({ status: 'playing', reason: null }) as CloudSessionState))();
    },
    stop: async (token, options) => {
      calls.push({ name: 'stop', args: [token, options] });
      return (script.stop ?? (async () => ({ ok: true })))();
    },
  };
  const runner = new CloudPlayRunner({
    api,
    createPeer: (config) => {
      const peer = new FakePeer(config);
      peers.push(peer);
      return peer as unknown as RTCPeerConnection;
    },
    dispatch: (event) => {
      events.push(event);
      status = cloudPlayReducer(status, event);
    },
    describeFailure: (error) => (error instanceof ApiError ? { code: error.code, status: error.status } : { code: 'unexpected_error' }),
    onTrack: (track) => tracks.push(track),
    onInputChannel: (channel) => channels.push(channel),
    onRunEnd: () => runEnds++,
    sleep: clock.sleep,
    statePollMs: 2000,
    gatherTimeoutMs: 1000,
    stopCloseMs: 100,
    unreachableGraceMs: 5000,
  });
  return {
    runner,
    clock,
    calls,
    events,
    peers,
    tracks,
    channels,
    get status() {
      return status;
    },
    get runEnds() {
      return runEnds;
    },
    named: (name: string) => calls.filter((call) => call.name === name),
  };
}

describe('initWithRetry (spec §4, §9)', () => {
  test('asks again every 1000 ms while the answer is timeout, then gives the offer', async () => {
    const slept: number[] = [];
    let calls = 0;
    let timeouts = 0;
    const result = await initWithRetry(
      async () => {
        calls++;
        if (calls <= 3) throw timeout();
        return 'offer';
      },
      { signal: new AbortController().signal, sleep: async (ms) => void slept.push(ms), onTimeout: () => timeouts++ },
    );
    expect(result).toBe('offer');
    expect(calls).toBe(4);
    expect(timeouts).toBe(3);
    expect(slept).toEqual([1000, 1000, 1000]);
    expect(cloudPlayRetryMs).toBe(1000);
  });

  test('any other failure is thrown as it came, without waiting', async () => {
    const slept: number[] = [];
    for (const error of [new ApiError('not_found', 'gone', { status: 404 }), new ApiError('http_503', 'proxy', { status: 503 }), new ApiError('network'), new TypeError('x')]) {
      const failure = await initWithRetry(
        async () => {
          throw error;
        },
        { signal: new AbortController().signal, sleep: async (ms) => void slept.push(ms) },
      ).catch((caught: unknown) => caught);
      expect(failure).toBe(error);
    }
    expect(slept).toEqual([]);
  });

  test('stops asking once aborted', async () => {
    const controller = new AbortController();
    let calls = 0;
    const failure = await initWithRetry(
      async () => {
        calls++;
        throw timeout();
      },
      {
        signal: controller.signal,
        sleep: async () => controller.abort(new Error('left')),
      },
    ).catch((caught: unknown) => caught);
    expect((failure as Error).message).toBe('left');
    expect(calls).toBe(1);
  });

  test('the timeout code is recognised from REST and from tRPC errors', () => {
    expect(isTimeoutError(timeout())).toBe(true);
    expect(isTimeoutError({ data: { code: 'timeout' } })).toBe(true);
    expect(isTimeoutError(new ApiError('http_503', 'Service Unavailable', { status: 503 }))).toBe(false);
    expect(isTimeoutError(new Error('timeout'))).toBe(false);
    expect(isTimeoutError(null)).toBe(false);
  });

  test('the offer is JSON text {type: offer, sdp}', () => {
    expect(parseOffer(offerText)).toEqual({ type: 'offer', sdp: 'v=0 offer' });
    expect(parseOffer({ type: 'offer', sdp: 'v=0' })).toEqual({ type: 'offer', sdp: 'v=0' });
    for (const bad of ['not json', JSON.stringify({ type: 'answer', sdp: 'x' }), JSON.stringify({ type: 'offer', sdp: '' }), 42, null]) {
      expect(() => parseOffer(bad)).toThrow(ApiError);
    }
  });
});

describe('a server that does not answer (a restart, a proxy in front of it)', () => {
  test('no answer and a proxy’s 5xx page are unreachable; the server’s own answers are not', () => {
    for (const error of [offline(), proxyError(502), proxyError(503), proxyError(504)]) expect(isUnreachable(error)).toBe(true);
    for (const error of [timeout(), new ApiError('not_found', 'gone', { status: 404 }), new ApiError('unexpected_error', 'bug', { status: 500 }), new TypeError('x'), null]) {
      expect(isUnreachable(error)).toBe(false);
    }
  });

  test('whileUnreachable asks again every 1000 ms for the grace, then gives up with the last failure; an answer of the server ends it at once', async () => {
    const slept: number[] = [];
    let calls = 0;
    const reply = await whileUnreachable(
      async () => {
        calls++;
        if (calls === 1) throw offline();
        if (calls === 2) throw proxyError(502);
        return 'offer';
      },
      { signal: new AbortController().signal, sleep: async (ms) => void slept.push(ms), graceMs: 10_000 },
    );
    expect([reply, calls, slept]).toEqual(['offer', 3, [1000, 1000]]);

    slept.length = 0;
    const failure = await whileUnreachable(
      async () => {
        throw proxyError(503);
      },
      { signal: new AbortController().signal, sleep: async (ms) => void slept.push(ms), graceMs: 3000 },
    ).catch((caught: unknown) => caught);
    expect((failure as ApiError).code).toBe('http_503');
    expect(slept).toEqual([1000, 1000, 1000]);

    slept.length = 0;
    const refused = new ApiError('not_found', 'gone', { status: 404 });
    expect(
      await whileUnreachable(
        async () => {
          throw refused;
        },
        { signal: new AbortController().signal, sleep: async (ms) => void slept.push(ms) },
      ).catch((caught: unknown) => caught),
    ).toBe(refused);
    expect(slept).toEqual([]);
  });

  test('init rides out the server restarting while the page waits for a machine', async () => {
    const h = harness({ init: [async () => Promise.reject(timeout()), async () => Promise.reject(offline()), async () => Promise.reject(proxyError(502)), async () => offerText] });
    h.runner.start();
    await until(() => h.clock.pending === 1, 'the timeout wait');
    expect(await h.clock.tick()).toBe(1000);
    // Unreachable twice: asked again every second, still awaiting a machine, no error.
    expect(await h.clock.tick()).toBe(1000);
    expect(h.status.state).toBe('awaiting_machine');
    expect(await h.clock.tick()).toBe(1000);
    await until(() => h.named('connect').length === 1, 'connect');
    expect(h.named('init')).toHaveLength(4);
    expect(h.status).toEqual({ state: 'connecting' });
  });

  test('connect rides it out too; a retried answer the server already has counts as connected', async () => {
    const h = harness({ connect: [async () => Promise.reject(offline()), async () => Promise.reject(new ApiError('name_conflict', 'already', { status: 409, details: { reason: 'already_connected' } }))] });
    h.runner.start();
    await until(() => h.named('connect').length === 1, 'the first connect');
    await h.clock.tick();
    await until(() => h.named('connect').length === 2, 'connect again');
    h.peers[0]!.setConnection('connected');
    expect(h.status).toEqual({ state: 'playing' });
    await until(() => h.clock.pending === 1, 'the state poll');
    expect(h.named('stop')).toHaveLength(0);
  });

  test('a second answer refused without a lost first try is still an error', async () => {
    const h = harness({ connect: [async () => Promise.reject(new ApiError('name_conflict', 'already', { status: 409, details: { reason: 'already_connected' } }))] });
    h.runner.start();
    await until(() => h.status.state === 'error', 'the error state');
    expect(h.status).toEqual({ state: 'error', failure: { code: 'name_conflict', status: 409 } });
  });

  test('playing: a minute of state polls failing (network, 502, 503 pages, 5xx) does not end the session; the server’s word then does', async () => {
    const failures = [offline(), proxyError(502), proxyError(503), proxyError(504), new ApiError('unexpected_error', 'database restarting', { status: 500 })];
    let failing = 0;
    let state: CloudSessionState = { status: 'playing', reason: null };
    const h = harness({
      state: async () => {
        if (failing > 0) throw failures[failing-- % failures.length]!;
        return state;
      },
    });
    h.runner.start();
    await until(() => h.named('connect').length === 1, 'connect');
    h.peers[0]!.setConnection('connected');
    failing = 30; // 30 polls of 2 s
    for (let poll = 0; poll < 30; poll++) {
      await until(() => h.clock.pending === 1, 'the next state poll');
      await h.clock.tick();
      expect(h.status).toEqual({ state: 'playing' });
    }
    expect(h.named('state')).toHaveLength(30);
    expect(h.peers[0]!.closed).toBe(false);
    expect(h.named('stop')).toHaveLength(0);
    await until(() => h.clock.pending === 1, 'the next state poll');
    await h.clock.tick();
    expect(h.status).toEqual({ state: 'playing' });
    state = { status: 'errored', reason: 'machine_lost' };
    await h.clock.tick();
    expect(h.status).toEqual({ state: 'error', reason: 'machine_lost' });
  });

  test('init unreachable past the grace: the error state with the network failure', async () => {
    const h = harness({ init: [async () => Promise.reject(offline())], state: async () => Promise.reject(offline()) });
    h.runner.start();
    for (let wait = 0; wait < 5; wait++) {
      await until(() => h.clock.pending === 1, 'the retry wait');
      await h.clock.tick();
    }
    await until(() => h.status.state === 'error', 'the error state');
    expect(h.status).toEqual({ state: 'error', failure: { code: 'network', status: 0 } });
    expect(h.named('init')).toHaveLength(6);
  });
});

describe('no machine online', () => {
  test('create refused with no_machine_online: the error state says so (its own reason), nothing to stop', async () => {
    const h = harness({ create: async () => Promise.reject(new ApiError('not_supported', 'No cloud-play machine is online right now', { status: 501, details: { reason: 'no_machine_online' } })) });
    h.runner.start();
    await until(() => h.status.state === 'error', 'the error state');
    expect(h.status).toEqual({ state: 'error', reason: 'no_machine_online' });
    expect(h.named('init')).toHaveLength(0);
    expect(h.named('stop')).toHaveLength(0);
  });
});

describe('CloudPlayRunner', () => {
  test('the whole way to playing, then the session ends with the server’s reason', async () => {
    let state: CloudSessionState = { status: 'playing', reason: null };
    const h = harness({ init: [async () => Promise.reject(timeout()), async () => Promise.reject(timeout()), async () => offerText], state: async () => state });
    h.runner.start();
    await until(() => h.clock.pending === 1, 'the first retry wait');
    expect(h.status).toEqual({ state: 'awaiting_machine', waits: 1 });
    expect(await h.clock.tick()).toBe(1000);
    expect(h.status).toEqual({ state: 'awaiting_machine', waits: 2 });
    expect(await h.clock.tick()).toBe(1000);
    await until(() => h.named('connect').length === 1, 'connect');
    expect(h.status).toEqual({ state: 'connecting' });
    expect(h.named('init').map((call) => call.args)).toEqual([['cp_token'], ['cp_token'], ['cp_token']]);

    const peer = h.peers[0]!;
    // The session's ICE servers, the agent's offer, and the answer sent once gathering completed.
    expect(peer.config).toEqual({ iceServers: created.iceServers });
    expect(peer.remote).toEqual({ type: 'offer', sdp: 'v=0 offer' });
    expect(h.named('connect')[0]!.args).toEqual(['cp_token', 'v=0 answer a=candidate:1']);

    const video = peer.announceTrack('video');
    peer.announceChannel('other');
    const input = peer.announceChannel('input');
    expect(h.tracks).toEqual([video]);
    expect(h.channels).toEqual([input]);

    peer.setConnection('connected');
    expect(h.status).toEqual({ state: 'playing' });

    // Watched every 2 s until it ends.
    await until(() => h.clock.pending === 1, 'the state poll');
    expect(await h.clock.tick()).toBe(2000);
    expect(h.named('state')).toHaveLength(1);
    expect(h.status.state).toBe('playing');
    state = { status: 'ended', reason: 'game_exited' };
    await h.clock.tick();
    expect(h.status).toEqual({ state: 'not_started', ended: 'game_exited' });
    expect(peer.closed).toBe(true);
    expect(h.runEnds).toBe(1);
    // The server ended it: nothing to stop.
    expect(h.named('stop')).toHaveLength(0);
    expect(h.runner.live).toBe(false);
    expect(h.events.map((event) => event.type)).toEqual(['start', 'created', 'init_timeout', 'init_timeout', 'offered', 'peer_connected', 'ended']);
  });

  test('an errored session shows its reason as an error', async () => {
    let state: CloudSessionState = { status: 'playing', reason: null };
    const h = harness({ state: async () => state });
    h.runner.start();
    await until(() => h.named('connect').length === 1, 'connect');
    h.peers[0]!.setConnection('connected');
    state = { status: 'errored', reason: 'machine_lost' };
    await until(() => h.clock.pending === 1, 'the state poll');
    await h.clock.tick();
    expect(h.status).toEqual({ state: 'error', reason: 'machine_lost' });
  });

  test('init failing with another error: the error state with its text, no retry; the session is stopped', async () => {
    const h = harness({ init: [async () => Promise.reject(new ApiError('not_supported', 'no', { status: 400 }))] });
    h.runner.start();
    await until(() => h.status.state === 'error', 'the error state');
    expect(h.status).toEqual({ state: 'error', failure: { code: 'not_supported', status: 400 } });
    expect(h.named('init')).toHaveLength(1);
    expect(h.clock.pending).toBe(0);
    expect(h.named('stop').map((call) => call.args)).toEqual([['cp_token', { leaving: false }]]);
  });

  test('init refused because the session ended (no machine in time): the session’s reason is shown', async () => {
    const h = harness({
      init: [async () => Promise.reject(timeout()), async () => Promise.reject(new ApiError('not_found', 'ended', { status: 404 }))],
      state: async () => ({ status: 'errored', reason: 'no_machine' }),
    });
    h.runner.start();
    await until(() => h.clock.pending === 1, 'the retry wait');
    await h.clock.tick();
    await until(() => h.status.state === 'error', 'the error state');
    expect(h.status).toEqual({ state: 'error', reason: 'no_machine' });
  });

  test('create failing: the error state, nothing to stop', async () => {
    const h = harness({ create: async () => Promise.reject(new ApiError('insufficient_privileges', 'no', { status: 403 })) });
    h.runner.start();
    await until(() => h.status.state === 'error', 'the error state');
    expect(h.status).toEqual({ state: 'error', failure: { code: 'insufficient_privileges', status: 403 } });
    expect(h.named('init')).toHaveLength(0);
    expect(h.named('stop')).toHaveLength(0);
    // Start again works.
    h.runner.start();
    expect(h.status.state).toBe('creating_session');
  });

  test('an offer that is not an SDP offer is an error', async () => {
    const h = harness({ init: [async () => 'not json'] });
    h.runner.start();
    await until(() => h.status.state === 'error', 'the error state');
    expect(h.status).toEqual({ state: 'error', failure: { code: 'unexpected_error', status: 0 } });
    expect(h.peers).toHaveLength(0);
  });

  test('Stop while waiting for a machine: not_started (stopped), the session stopped, no more init calls', async () => {
    const h = harness({ init: [async () => Promise.reject(timeout())] });
    h.runner.start();
    await until(() => h.clock.pending === 1, 'the retry wait');
    h.runner.stop();
    expect(h.status).toEqual({ state: 'not_started', ended: 'stopped' });
    await settle();
    expect(h.named('init')).toHaveLength(1);
    expect(h.named('stop').map((call) => call.args)).toEqual([['cp_token', { leaving: false }]]);
    expect(h.runner.live).toBe(false);
  });

  test('Stop while the session is being created: the session is stopped once it exists', async () => {
    let finishCreate: (session: CreatedCloudSession) => void = () => undefined;
    const h = harness({ create: () => new Promise((resolve) => (finishCreate = resolve)) });
    h.runner.start();
    expect(h.status.state).toBe('creating_session');
    h.runner.stop();
    expect(h.status).toEqual({ state: 'not_started', ended: 'stopped' });
    finishCreate(created);
    await until(() => h.named('stop').length === 1, 'the stop');
    expect(h.named('init')).toHaveLength(0);
    expect(h.status).toEqual({ state: 'not_started', ended: 'stopped' });
  });

  test('Stop while playing closes the connection; its late events change nothing', async () => {
    const h = harness();
    h.runner.start();
    await until(() => h.named('connect').length === 1, 'connect');
    const peer = h.peers[0]!;
    peer.setConnection('connected');
    h.runner.stop();
    expect(h.status).toEqual({ state: 'not_started', ended: 'stopped' });
    await until(() => peer.closed, 'the connection closed');
    peer.setConnection('failed');
    peer.announceTrack('audio');
    await settle();
    expect(h.status).toEqual({ state: 'not_started', ended: 'stopped' });
    expect(h.tracks).toHaveLength(0);
    expect(h.named('stop')).toHaveLength(1);
  });

  test('Stop: the machine gets the stop before the connection goes (closed here after stopCloseMs)', async () => {
    const h = harness();
    h.runner.start();
    await until(() => h.named('connect').length === 1, 'connect');
    const peer = h.peers[0]!;
    peer.setConnection('connected');
    h.runner.stop();
    expect(h.named('stop')).toHaveLength(1);
    await settle();
    expect(peer.closed).toBe(false);
    await until(() => peer.closed, 'the connection closed');
    // The machine closing it first changes nothing.
    peer.setConnection('closed');
    await settle();
    expect(h.status).toEqual({ state: 'not_started', ended: 'stopped' });
  });

  test('the connection failing while playing: connection_lost when the server still calls it live', async () => {
    const h = harness();
    h.runner.start();
    await until(() => h.named('connect').length === 1, 'connect');
    const peer = h.peers[0]!;
    peer.setConnection('connected');
    peer.setConnection('disconnected');
    await settle();
    // Disconnected may come back: only the server's word ends it.
    expect(h.status.state).toBe('playing');
    peer.setConnection('failed');
    await until(() => h.status.state === 'error', 'the error state');
    expect(h.status).toEqual({ state: 'error', reason: 'connection_lost' });
    expect(h.named('stop')).toHaveLength(1);
  });

  test('the connection never made: not_connected', async () => {
    const h = harness();
    h.runner.start();
    await until(() => h.named('connect').length === 1, 'connect');
    h.peers[0]!.setConnection('failed');
    await until(() => h.status.state === 'error', 'the error state');
    expect(h.status).toEqual({ state: 'error', reason: 'not_connected' });
  });

  test('the peer going away after the game exited: the server’s reason, not a connection error', async () => {
    let state: CloudSessionState = { status: 'playing', reason: null };
    const h = harness({ state: async () => state });
    h.runner.start();
    await until(() => h.named('connect').length === 1, 'connect');
    const peer = h.peers[0]!;
    peer.setConnection('connected');
    const input = peer.announceChannel('input');
    state = { status: 'ended', reason: 'game_exited' };
    input.dispatchEvent(new Event('close'));
    await until(() => h.status.state === 'not_started', 'the end');
    expect(h.status).toEqual({ state: 'not_started', ended: 'game_exited' });
  });

  test('a network hiccup while watching is asked again; leaving stops the session silently', async () => {
    let fail = true;
    const h = harness({
      state: async () => {
        if (fail) throw new ApiError('network', 'offline');
        return { status: 'playing', reason: null };
      },
    });
    h.runner.start();
    await until(() => h.named('connect').length === 1, 'connect');
    h.peers[0]!.setConnection('connected');
    await until(() => h.clock.pending === 1, 'the state poll');
    await h.clock.tick();
    expect(h.named('state')).toHaveLength(1);
    expect(h.status.state).toBe('playing');
    fail = false;
    await h.clock.tick();
    expect(h.named('state')).toHaveLength(2);
    const before = h.events.length;
    h.runner.leave();
    expect(h.events.length).toBe(before);
    expect(h.named('stop').map((call) => call.args)).toEqual([['cp_token', { leaving: true }]]);
    await until(() => h.peers[0]!.closed, 'the connection closed');
    expect(h.runner.live).toBe(false);
  });

  test('start while a session is live does nothing', async () => {
    const h = harness({ init: [async () => Promise.reject(timeout())] });
    h.runner.start();
    h.runner.start();
    await until(() => h.clock.pending === 1, 'the retry wait');
    expect(h.named('create')).toHaveLength(1);
    expect(h.events.filter((event) => event.type === 'start')).toHaveLength(1);
    h.runner.leave();
  });
});
