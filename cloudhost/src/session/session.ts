import { chmod, chown, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiClient } from '../../../src/shared/api/index.ts';
import type { AgentConfig } from '../config.ts';
import { disconnectGraceMs, limitReason, SessionLifecycle, type EndReason } from '../lifecycle.ts';
import { describeError, type Logger } from '../log.ts';
import type { ChunkCache } from '../package-cache.ts';
import { GamePeer, type PeerState } from '../peer.ts';
import { checkEntrypoint } from '../sandbox.ts';
import type { ServiceJailBase } from '../services.ts';
import { SessionDisk } from '../session-disk.ts';
import { mib, SessionClosing, type SessionControl, type StartWork } from './control.ts';
import { SessionGame } from './game.ts';
import { SessionPackage } from './package.ts';
import { SessionScreen } from './screen.ts';
import { SessionSound } from './sound.ts';

export type SessionDeps = {
  config: AgentConfig;
  cache: ChunkCache;
  api: ApiClient;
  log: Logger;
  /** This session's X display number. */
  display: number;
  /** Another free display number, when the first was taken meanwhile (another X server on the host). */
  otherDisplay(): number;
  /** The uid/gid the game runs as (the agent must be root), or undefined for the agent's own user. */
  uid: number | undefined;
  /** The uid/gid of the session's X server, sound server and encoders; undefined: the agent's own user. */
  serviceUid: number | undefined;
  hostRoots: Record<string, string>;
  /** Told after every state change (the agent reports it at once). */
  onChange(session: Session): void;
  /** Told once everything of the session is gone (its slot is free again). */
  onFinished(session: Session): void;
};

/** Waits for every promise; then throws the first failure, if any. */
async function settleAll(promises: Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * One cloud-play session on this machine, from the start work item to its end: its disk area, then
 * its parts, each owning its processes (package.ts, screen.ts: display and video encoder, sound.ts:
 * sound server and audio encoder, game.ts: the sandboxed game and its input), and the peer to the
 * player; then everything stopped in order and its folder removed. This class holds the order and the
 * session's state (lifecycle.ts): the offer, the answer, connection, limits and the end.
 */
export class Session {
  readonly id: string;
  readonly lifecycle: SessionLifecycle;
  readonly startedAt = Date.now();
  offeredAt: number | undefined;
  playingAt: number | undefined;
  readonly dir: string;
  private readonly log: Logger;
  private readonly abort = new AbortController();
  private closing = false;
  private preparing: Promise<void> | undefined;
  private endPromise: Promise<void> | undefined;
  private pendingAnswer: string | undefined;
  private disconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private limitTimer: ReturnType<typeof setInterval> | undefined;

  private readonly screen: SessionScreen;
  private readonly sound: SessionSound;
  private readonly game: SessionGame;
  private readonly package: SessionPackage;
  private peer: GamePeer | undefined;
  private disk: SessionDisk | undefined;
  /** Figures for logs and tests. */
  readonly figures: { connectMs?: number; offerMs?: number; packageMs?: number } = {};

  constructor(
    readonly work: StartWork,
    private readonly deps: SessionDeps,
  ) {
    this.id = work.session;
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(this.id)) throw new Error('the session id is not a plain id');
    this.lifecycle = new SessionLifecycle(this.id);
    this.lifecycle.onChange = () => deps.onChange(this);
    this.dir = join(deps.config.workDir, 'sessions', this.id);
    this.log = deps.log.child(`session ${this.id}: `);
    const control: SessionControl = {
      log: this.log,
      closing: () => this.closing,
      state: () => this.state,
      adopt: (resource, stop) => this.adopt(resource, stop),
      checkAlive: () => this.checkAlive(),
      end: (state, reason) => void this.end(state, reason),
      serviceJail: () => this.serviceJail(),
    };
    this.screen = new SessionScreen(control, deps.config, work.settings, deps.display, () => deps.otherDisplay());
    this.sound = new SessionSound(control, deps.config);
    this.game = new SessionGame(control, deps.config, deps.hostRoots, deps.uid);
    this.package = new SessionPackage(control, deps, work.package, this.abort.signal, this.figures);
  }

  get state() {
    return this.lifecycle.state;
  }

  /** True from the moment the session began ending (its slot frees once the cleanup is done). */
  get ending(): boolean {
    return this.closing;
  }

  get display(): number {
    return this.screen.display;
  }

  /** When the player's input last reached the game. */
  get lastInputAt(): number | undefined {
    return this.game.lastInputAt;
  }

  /** Prepares the session and makes the offer; failures end it as errored. Never throws. */
  async run(): Promise<void> {
    this.limitTimer = setInterval(() => this.checkLimits(), 1000);
    this.preparing = this.prepare();
    try {
      await this.preparing;
    } catch (error) {
      if (!(error instanceof SessionClosing)) {
        this.log.warn(`failed: ${describeError(error)}`);
        void this.end('errored', describeError(error));
      }
    }
  }

  /** Takes a resource made while the session may have begun ending: stopped at once if it has. */
  private async adopt<T>(resource: T, stop: (resource: T) => unknown): Promise<T> {
    if (this.closing) {
      await Promise.resolve(stop(resource)).catch(() => undefined);
      throw new SessionClosing();
    }
    return resource;
  }

  private checkAlive(): void {
    if (this.closing) throw new SessionClosing();
  }

  /** What the session's servers and encoders run as and with (services.ts). */
  private serviceJail(): ServiceJailBase {
    const { config } = this.deps;
    const uid = this.deps.serviceUid;
    return {
      layout: this.disk!.layout,
      uid,
      limits: {
        memoryBytes: config.serviceMemoryMb * mib,
        // A uid of their own per session: its own count. Else the agent's user's, shared with everything it runs.
        processes: uid === undefined ? config.maxProcesses : 512,
        fileBytes: 1024 * mib,
        openFiles: 4096,
      },
      hostRoots: this.deps.hostRoots,
      programs: config.programs,
    };
  }

  private async prepare(): Promise<void> {
    const { config } = this.deps;
    const entrypoint = checkEntrypoint(this.work.package.entrypoint);
    const disk = await SessionDisk.create(this.dir, config.sessionDiskMb * mib, config.programs);
    this.disk = disk;
    this.checkAlive();
    const layout = disk.layout;
    // The game's folders are its user's; the servers' folders their user's, 0711 so the game's
    // sandbox (started as the game's user) can bind their sockets and nothing else.
    for (const dir of [layout.home, layout.tmp, layout.etc]) await mkdir(dir, { mode: 0o700 });
    await chmod(layout.etc, 0o755);
    for (const dir of [layout.x11, layout.pulse]) {
      await mkdir(dir, { mode: 0o711 });
      await chmod(dir, 0o711);
      if (this.deps.serviceUid !== undefined) await chown(dir, this.deps.serviceUid, this.deps.serviceUid);
    }

    // 1 and 2 at once: the package (through the chunk cache, into home/game), and the display and
    // sound server. Both are waited for, even when one fails, so nothing writes into the folder later.
    await settleAll([this.package.prepare(disk, entrypoint), this.screen.start(), this.sound.start()]);
    this.checkAlive();
    // From here on the game's writes are bounded: what the package took plus the quota.
    await disk.seal();
    await this.game.connectInput(layout, this.display);
    await this.game.start(layout, entrypoint, this.display);

    // 3. The peer, its tracks fed by ffmpeg's RTP, and the input channel.
    const peer = new GamePeer(this.work.iceServers, config.codec);
    this.peer = await this.adopt(peer, (value) => value.close());
    await this.screen.openStream(peer);
    await this.sound.openStream(peer);
    this.game.receiveInput(peer);
    peer.input.stateChanged.subscribe((state) => {
      if (state === 'closed' && !this.closing && this.state === 'playing') void this.end('ended', 'peer_left');
    });
    peer.onState((state) => this.onPeerState(state));
    const offerStarted = Date.now();
    const offer = await peer.createOffer();
    this.checkAlive();
    this.figures.offerMs = Date.now() - offerStarted;
    this.offeredAt = Date.now();
    this.lifecycle.move('offered', { offer });
    this.log.info(`offered (${Date.now() - this.startedAt} ms after start)`);
    // Audio needs no keyframe: its encoder starts now (PulseAudio takes about a second to deliver), video on connect.
    this.sound.startEncoder();
    if (this.pendingAnswer !== undefined) await this.applyAnswer(this.pendingAnswer);
  }

  /** The player's answer (work item `answer`); ignored unless the session is waiting for one. */
  async applyAnswer(sdp: string): Promise<void> {
    if (this.state === 'preparing') {
      this.pendingAnswer = sdp;
      return;
    }
    if (this.state !== 'offered' || !this.peer) return;
    this.pendingAnswer = undefined;
    try {
      await this.peer.applyAnswer(sdp);
      this.lifecycle.move('connecting');
      this.log.info('answer applied');
    } catch (error) {
      void this.end('errored', `the answer was refused: ${describeError(error)}`);
    }
  }

  private onPeerState(state: PeerState): void {
    if (this.closing) return;
    if (state === 'connected') {
      if (this.disconnectTimer) clearTimeout(this.disconnectTimer);
      this.disconnectTimer = undefined;
      if (this.state === 'offered' || this.state === 'connecting') {
        this.playingAt = Date.now();
        this.figures.connectMs = this.offeredAt === undefined ? undefined : this.playingAt - this.offeredAt;
        this.lifecycle.move('playing');
        this.log.info(`playing (connected ${this.figures.connectMs} ms after the offer)`);
        this.screen.startEncoder();
      }
    } else if (state === 'disconnected') {
      this.disconnectTimer ??= setTimeout(() => void this.end('ended', 'peer_left'), disconnectGraceMs);
    } else if (state === 'failed' || state === 'closed') {
      void this.end('ended', this.state === 'playing' ? 'peer_left' : 'not_connected');
    }
  }

  private checkLimits(): void {
    const reason = limitReason(
      this.state,
      { startedAt: this.startedAt, offeredAt: this.offeredAt, playingAt: this.playingAt, lastInputAt: this.lastInputAt, now: Date.now() },
      this.work.settings,
    );
    if (reason !== undefined) void this.end('ended', reason);
    void this.disk
      ?.becameFull()
      .then((full) => {
        if (full) this.log.warn(`its disk area is full (${this.deps.config.sessionDiskMb} MiB written): the game's writes now fail with ENOSPC`);
      })
      .catch(() => undefined);
  }

  /** The server's stop (or the agent's shutdown). */
  stop(reason: EndReason | string = 'stopped'): Promise<void> {
    return this.end('ended', reason);
  }

  /** Stops everything, removes the folder, then reports the final state. Idempotent. */
  end(state: 'ended' | 'errored', reason: string): Promise<void> {
    if (this.endPromise) return this.endPromise;
    this.closing = true;
    this.abort.abort(new SessionClosing());
    this.endPromise = (async () => {
      this.log.info(`ending: ${reason}`);
      await this.preparing?.catch(() => undefined);
      await this.cleanup();
      this.lifecycle.move(state, { reason });
      this.deps.onFinished(this);
    })();
    return this.endPromise;
  }

  private async cleanup(): Promise<void> {
    if (this.limitTimer) clearInterval(this.limitTimer);
    if (this.disconnectTimer) clearTimeout(this.disconnectTimer);
    if (this.playingAt !== undefined) {
      const seconds = (Date.now() - this.playingAt) / 1000;
      const video = this.screen.streamed;
      this.log.info(
        `streamed ${seconds.toFixed(1)} s: ${video.packets} video packets (${((video.bytes * 8) / seconds / 1000).toFixed(0)} kbit/s), ${this.sound.packets} audio packets, ${this.peer?.pliCount ?? 0} keyframe requests, ${this.game.injected} input events`,
      );
    }
    const quietly = async (what: string, work: () => unknown) => {
      try {
        await work();
      } catch (error) {
        this.log.warn(`cleanup of ${what}: ${describeError(error)}`);
      }
    };
    // The game first (its process group: bwrap, and with it the sandbox's whole PID namespace).
    await quietly('game', () => this.game.stop());
    await quietly('encoders', () => Promise.all([this.screen.stopEncoder(), this.sound.stopEncoder()]));
    await quietly('peer', () => this.peer?.close());
    this.screen.closeStream();
    this.sound.closeStream();
    await quietly('input', () => this.game.closeInput());
    await quietly('audio', () => this.sound.stopServer());
    await quietly('display', () => this.screen.stopDisplay());
    this.package.release();
    await quietly('session folder', () => (this.disk ? this.disk.remove() : rm(this.dir, { recursive: true, force: true })));
  }
}
