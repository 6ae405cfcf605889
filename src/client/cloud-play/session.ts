/**
 * One cloud-play session from the page's side (spec §4), free of React: create → init (asked again
 * every second while it answers `timeout`) → the agent's offer into the browser's own
 * RTCPeerConnection → the answer to connect → playing once the connection is connected; then the
 * session's state is watched until it ends. What happens is reported as the events of machine.ts.
 *
 * The network calls and the peer connection are injected (the page passes its tRPC calls and
 * `new RTCPeerConnection`; the unit tests pass fakes); their failures are read from either client.
 *
 * Not simple-peer (named in the founding design): unmaintained since 2021, it needs Buffer and stream
 * polyfills in a browser bundle, and it connected about 300 ms slower than a plain RTCPeerConnection
 * against werift when both were measured (STACK-NOTES.md).
 */
import { cloudPlayRetryMs, noMachineOnlineReason, type CloudSessionState, type CreatedCloudSession } from '../../shared/schemas/cloud-play.ts';
import { refusalReasonOf } from '../../shared/refusal-reasons.ts';
import { TRPCClientError } from '@trpc/client';
import { ApiError } from '../../shared/api/errors.ts';
import { toDisplayError } from '../lib/errors.ts';
import { sleep } from '../../shared/sleep.ts';
import type { CloudPlayEvent, CloudPlayFailure } from './machine.ts';

export type CloudPlayApi = {
  create(): Promise<CreatedCloudSession>;
  /** The agent's offer as JSON text ({type: 'offer', sdp}); fails with code `timeout` until it is ready. */
  init(token: string, signal: AbortSignal): Promise<unknown>;
  connect(token: string, sdp: string, signal: AbortSignal): Promise<unknown>;
  state(token: string, signal: AbortSignal): Promise<CloudSessionState>;
  /** Ends the session on the server; `leaving`: the page is going away (the call must outlive it). */
  stop(token: string, options: { leaving: boolean }): Promise<unknown>;
};

export type CloudPlayRunnerOptions = {
  api: CloudPlayApi;
  /** `new RTCPeerConnection(config)` in the browser. */
  createPeer(config: RTCConfiguration): RTCPeerConnection;
  dispatch(event: CloudPlayEvent): void;
  /** The created session (its settings give the game's size for the input). */
  onSession?(session: CreatedCloudSession): void;
  /** Each remote track (video, audio) of the session's connection. */
  onTrack?(track: MediaStreamTrack): void;
  /** The agent's `input` data channel, once it is announced. */
  onInputChannel?(channel: RTCDataChannel): void;
  /** Called when a run is over (ended, failed, stopped or left): drop its stream and channel. */
  onRunEnd?(): void;
  /** Turns a failed call into what the page shows (lib/errors.ts toDisplayError). */
  describeFailure(error: unknown): CloudPlayFailure;
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
  /** How often the session's state is asked once the answer went (the footer learns why it ended). */
  statePollMs?: number;
  /** The longest wait for ICE gathering before the answer goes with what was gathered. */
  gatherTimeoutMs?: number;
  /** How long a stopped session's connection is left to the machine to close before it is closed here. */
  stopCloseMs?: number;
  /** How long init and connect ride out a server that does not answer (a restart) before they fail. */
  unreachableGraceMs?: number;
};

const cloudStatePollMs = 2000;
/** A restart or rolling upgrade of the server takes up to a minute; the stream plays on meanwhile. */
const unreachableGraceMs = 90_000;
const gatherTimeoutMs = 3000;
const stopCloseMs = 2000;

/** What a failed call says, from the REST client (ApiError) or the tRPC client (TRPCClientError), read as lib/errors.ts reads it. */
type CallFailure = { code: string; details: unknown; retryable: boolean };

function failureOf(error: unknown): CallFailure | undefined {
  if (!(error instanceof ApiError) && !(error instanceof TRPCClientError)) return undefined;
  const { code, status = 0, details } = toDisplayError(error);
  // ApiError's own rule, for tRPC's failures too: a network failure, a 5xx (but out_of_storage) or 408.
  const retryable = error instanceof ApiError ? error.retryable : code !== 'out_of_storage' && (code === 'network' || status >= 500 || status === 408);
  return { code, details, retryable };
}

/** The error body's code is `timeout` (spec §4: the only failure of session init that is asked again). */
export function isTimeoutError(error: unknown): boolean {
  const failure = failureOf(error);
  if (failure) return failure.code === 'timeout';
  const data = (error as { data?: { code?: unknown } } | null)?.data;
  return typeof data === 'object' && data !== null && data.code === 'timeout';
}

/**
 * No answer from the server itself: the network failed, or a proxy answered for it (502, 503, 504 with
 * its own page: `http_5xx`). The server restarting looks like this; a catalogued error is its answer.
 */
export function isUnreachable(error: unknown): boolean {
  const code = failureOf(error)?.code;
  return code !== undefined && (code === 'network' || /^http_5\d\d$/.test(code));
}

/**
 * Asks again every `retryMs` while the server does not answer (isUnreachable), for up to `graceMs`;
 * then, and for any answer of the server's, the call's own outcome.
 */
export async function whileUnreachable<T>(
  call: () => Promise<T>,
  options: { signal: AbortSignal; sleep?: (ms: number, signal: AbortSignal) => Promise<void>; retryMs?: number; graceMs?: number },
): Promise<T> {
  const wait = options.sleep ?? sleep;
  const retryMs = options.retryMs ?? cloudPlayRetryMs;
  let waited = 0;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (options.signal.aborted || !isUnreachable(error) || waited >= (options.graceMs ?? unreachableGraceMs)) throw error;
      await wait(retryMs, options.signal);
      waited += retryMs;
    }
  }
}

/** The create call's refusal while no machine is online (details.reason no_machine_online). */
function isNoMachineOnline(error: unknown): boolean {
  const details = failureOf(error)?.details ?? (error as { data?: { details?: unknown } } | null)?.data?.details;
  return refusalReasonOf(details) === noMachineOnlineReason;
}

/** connect's refusal of a second answer: after a retry, the first one got through. */
function isAlreadyConnected(error: unknown): boolean {
  const failure = failureOf(error);
  return failure?.code === 'name_conflict' && refusalReasonOf(failure.details) === 'already_connected';
}

/**
 * Spec §4: session init, asked again every `retryMs` (§9: 1000 ms) while it fails with `timeout`;
 * any other failure is thrown as it came.
 */
export async function initWithRetry<T>(
  init: () => Promise<T>,
  options: { signal: AbortSignal; sleep?: (ms: number, signal: AbortSignal) => Promise<void>; onTimeout?: () => void; retryMs?: number },
): Promise<T> {
  const wait = options.sleep ?? sleep;
  for (;;) {
    options.signal.throwIfAborted();
    try {
      return await init();
    } catch (error) {
      if (options.signal.aborted || !isTimeoutError(error)) throw error;
      options.onTimeout?.();
      await wait(options.retryMs ?? cloudPlayRetryMs, options.signal);
    }
  }
}

/** The init reply: the offer as JSON text (an object is taken as it is). */
export function parseOffer(reply: unknown): RTCSessionDescriptionInit {
  let value: unknown = reply;
  if (typeof reply === 'string') {
    try {
      value = JSON.parse(reply);
    } catch {
      value = undefined;
    }
  }
  const offer = value as { type?: unknown; sdp?: unknown } | undefined;
  if (!offer || offer.type !== 'offer' || typeof offer.sdp !== 'string' || offer.sdp === '') {
    throw new ApiError('unexpected_error', 'the session offer is not an SDP offer', { retryable: false });
  }
  return { type: 'offer', sdp: offer.sdp };
}

/** Resolves once ICE gathering is complete (nothing trickles: the answer carries every candidate), or after `timeoutMs`. */
function gatheringComplete(peer: RTCPeerConnection, timeoutMs: number, signal: AbortSignal): Promise<void> {
  if (peer.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      peer.removeEventListener('icegatheringstatechange', onChange);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const onChange = () => {
      if (peer.iceGatheringState === 'complete') done();
    };
    const timer = setTimeout(done, timeoutMs);
    peer.addEventListener('icegatheringstatechange', onChange);
    signal.addEventListener('abort', done, { once: true });
  });
}

type Run = {
  controller: AbortController;
  token?: string;
  peer?: RTCPeerConnection;
  /** The peer reached `connected` once (a later loss is 'connection_lost', before it 'not_connected'). */
  connected: boolean;
};

/**
 * Runs sessions one at a time: start() begins one (ignored while one is live), stop() is the
 * player's Stop, leave() ends it silently when the page goes away.
 */
export class CloudPlayRunner {
  private current: Run | undefined;

  constructor(private readonly options: CloudPlayRunnerOptions) {}

  get live(): boolean {
    return this.current !== undefined;
  }

  start(): void {
    if (this.current) return;
    const run: Run = { controller: new AbortController(), connected: false };
    this.current = run;
    this.options.dispatch({ type: 'start' });
    void this.execute(run);
  }

  /** The player's Stop: the session ends on the server too. */
  stop(): void {
    const run = this.current;
    if (!run) return;
    this.close(run, { stopOnServer: true, leaving: false });
    this.options.dispatch({ type: 'stop' });
  }

  /** The page is going away (navigation, closing the tab): end the session, report nothing. */
  leave(): void {
    const run = this.current;
    if (!run) return;
    this.close(run, { stopOnServer: true, leaving: true });
  }

  private async execute(run: Run): Promise<void> {
    const { api } = this.options;
    const signal = run.controller.signal;
    try {
      // Not aborted midway: a session the server made must be known, to be stopped.
      const session = await api.create();
      if (signal.aborted) {
        void api.stop(session.token, { leaving: false }).catch(() => undefined);
        return;
      }
      run.token = session.token;
      this.options.onSession?.(session);
      this.options.dispatch({ type: 'created' });

      // A server restarting meanwhile (no answer at all) is asked again too: the session lives on there.
      const reachable = { signal, sleep: this.options.sleep, graceMs: this.options.unreachableGraceMs };
      const reply = await initWithRetry(() => whileUnreachable(() => api.init(session.token, signal), reachable), {
        signal,
        sleep: this.options.sleep,
        onTimeout: () => this.options.dispatch({ type: 'init_timeout' }),
      });
      const offer = parseOffer(reply);
      signal.throwIfAborted();
      this.options.dispatch({ type: 'offered' });

      const peer = this.options.createPeer({ iceServers: session.iceServers });
      run.peer = peer;
      this.watchPeer(run, peer);
      await peer.setRemoteDescription(offer);
      const answer = await peer.createAnswer();
      await peer.setLocalDescription(answer);
      await gatheringComplete(peer, this.options.gatherTimeoutMs ?? gatherTimeoutMs, signal);
      signal.throwIfAborted();
      const sdp = peer.localDescription?.sdp ?? answer.sdp ?? '';
      let tries = 0;
      await whileUnreachable(async () => {
        tries += 1;
        try {
          await api.connect(session.token, sdp, signal);
        } catch (error) {
          // The answer of a try whose reply was lost is in: that is this answer.
          if (tries > 1 && isAlreadyConnected(error)) return;
          throw error;
        }
      }, reachable);
      await this.pollState(run);
    } catch (error) {
      if (signal.aborted || this.current !== run) return;
      if (!run.token && isNoMachineOnline(error)) {
        this.finish(run, { type: 'ended', reason: noMachineOnlineReason, errored: true }, false);
        return;
      }
      // A session the server ended (no machine in time, the machine lost) says why better than the call.
      const state = run.token ? await this.stateOf(run) : undefined;
      if (this.current !== run) return;
      if (state && (state.status === 'ended' || state.status === 'errored')) this.finishEnded(run, state);
      else this.finish(run, { type: 'failed', failure: this.options.describeFailure(error) }, true);
    }
  }

  /** The session's state, or undefined when it cannot be had. */
  private async stateOf(run: Run): Promise<CloudSessionState | undefined> {
    try {
      return await this.options.api.state(run.token!, new AbortController().signal);
    } catch {
      return undefined;
    }
  }

  private watchPeer(run: Run, peer: RTCPeerConnection): void {
    peer.addEventListener('track', (event) => {
      // A game wants the newest frame now, not a smooth film: ask for the smallest jitter buffer
      // (jitterBufferTarget is the standard name; Chromium also reads playoutDelayHint).
      const receiver = event.receiver as RTCRtpReceiver & { jitterBufferTarget?: number | null; playoutDelayHint?: number | null };
      try {
        if ('jitterBufferTarget' in receiver) receiver.jitterBufferTarget = 0;
        if ('playoutDelayHint' in receiver) receiver.playoutDelayHint = 0;
      } catch {
        // Older browsers: their default buffer.
      }
      if (this.current === run) this.options.onTrack?.(event.track);
    });
    peer.addEventListener('datachannel', (event) => {
      if (this.current !== run || event.channel.label !== 'input') return;
      event.channel.addEventListener('close', () => void this.checkEnd(run));
      this.options.onInputChannel?.(event.channel);
    });
    peer.addEventListener('connectionstatechange', () => {
      if (this.current !== run) return;
      const state = peer.connectionState;
      if (state === 'connected') {
        run.connected = true;
        this.options.dispatch({ type: 'peer_connected' });
      } else if (state === 'disconnected') {
        // May come back; the server knows whether the session ended (the game exited, a limit).
        void this.checkEnd(run);
      } else if (state === 'failed' || state === 'closed') {
        void this.checkEnd(run, run.connected ? 'connection_lost' : 'not_connected');
      }
    });
  }

  /** Asks the server whether the session ended; `otherwise`: the reason to end with if it did not. */
  private async checkEnd(run: Run, otherwise?: string): Promise<void> {
    if (this.current !== run || !run.token) return;
    const state = await this.stateOf(run);
    if (this.current !== run) return;
    if (state && (state.status === 'ended' || state.status === 'errored')) {
      this.finishEnded(run, state);
    } else if (otherwise) {
      this.finish(run, { type: 'ended', reason: otherwise, errored: true }, true);
    }
  }

  /**
   * Until the session ends: its state every few seconds. A call that fails without the server's word
   * (the network, a proxy's 502/503, a 5xx while it restarts) is asked again at the next poll, for as
   * long as it takes: the stream does not pass through the server, and the session plays on.
   */
  private async pollState(run: Run): Promise<void> {
    const signal = run.controller.signal;
    const wait = this.options.sleep ?? sleep;
    const pollMs = this.options.statePollMs ?? cloudStatePollMs;
    for (;;) {
      await wait(pollMs, signal);
      if (this.current !== run || !run.token) return;
      let state: CloudSessionState;
      try {
        state = await this.options.api.state(run.token, signal);
      } catch (error) {
        if (signal.aborted) return;
        if (failureOf(error)?.retryable) continue;
        throw error;
      }
      if (this.current !== run) return;
      if (state.status === 'ended' || state.status === 'errored') {
        this.finishEnded(run, state);
        return;
      }
    }
  }

  private finishEnded(run: Run, state: CloudSessionState): void {
    const errored = state.status === 'errored';
    this.finish(run, { type: 'ended', reason: state.reason ?? (errored ? 'unexpected_error' : 'ended'), errored }, false);
  }

  private finish(run: Run, event: CloudPlayEvent, stopOnServer: boolean): void {
    if (this.current !== run) return;
    this.close(run, { stopOnServer, leaving: false });
    this.options.dispatch(event);
  }

  private close(run: Run, how: { stopOnServer: boolean; leaving: boolean }): void {
    if (this.current === run) this.current = undefined;
    run.controller.abort();
    const closePeer = () => {
      try {
        run.peer?.close();
      } catch {
        // Already closed.
      }
    };
    if (how.stopOnServer && run.token) {
      // The machine ends the session when the server hands it the stop, and closes the connection then;
      // closing it here at once would make the machine see its player vanish first ('peer_left').
      // Nothing is shown or sent meanwhile; after stopCloseMs it is closed from this side anyway.
      setTimeout(closePeer, this.options.stopCloseMs ?? stopCloseMs);
      void this.options.api.stop(run.token, { leaving: how.leaving }).catch(() => undefined);
    } else {
      closePeer();
    }
    this.options.onRunEnd?.();
  }
}
