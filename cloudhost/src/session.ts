import { readlinkSync } from 'node:fs';
import { chmod, chown, lchown, lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { routes, type ApiClient } from '../../src/shared/api/index.ts';
import { decodeInput, decodePing } from '../../src/shared/cloud-play/input.ts';
import type { MachineWork } from '../../src/shared/schemas/cloud-play.ts';
import { startPulse, type AudioServer } from './audio.ts';
import type { AgentConfig } from './config.ts';
import { displayInUse, startXvfb, type DisplayServer } from './display.ts';
import { XTestInjector } from './injector.ts';
import { disconnectGraceMs, limitReason, SessionLifecycle, type EndReason } from './lifecycle.ts';
import { describeError, type Logger } from './log.ts';
import { startJail } from './jail.ts';
import { audioArgs, RtpReceiver, videoArgs } from './media.ts';
import type { ChunkCache, PreparedPackage } from './package-cache.ts';
import { GamePeer, type PeerState } from './peer.ts';
import type { ManagedProcess } from './processes.ts';
import { checkEntrypoint, gameJail, identityFiles, newMachineId, sandboxPulseSocket } from './sandbox.ts';
import { encoderJail, type ServiceJailBase } from './services.ts';
import { extractedBytes, SessionDisk, type SessionLayout } from './session-disk.ts';

export type StartWork = Extract<MachineWork, { kind: 'start' }>;

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

class SessionClosing extends Error {
  constructor() {
    super('the session is ending');
  }
}

/** Waits for every promise; then throws the first failure, if any. */
async function settleAll(promises: Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Encoders may fail and be restarted this many times per session before it gives up. */
const encoderRestarts = 3;
const mib = 1024 * 1024;

/** chown -R without following links (the extracted game is made the game user's). */
async function chownTree(path: string, uid: number): Promise<void> {
  await lchown(path, uid, uid);
  const info = await lstat(path);
  if (!info.isDirectory()) return;
  for (const name of await readdir(path)) await chownTree(join(path, name), uid);
}

/**
 * One cloud-play session on this machine, from the start work item to its end: package, display,
 * audio, sandboxed game, peer, encoders and input, then everything stopped and its folder removed.
 */
export class Session {
  readonly id: string;
  readonly lifecycle: SessionLifecycle;
  readonly startedAt = Date.now();
  offeredAt: number | undefined;
  playingAt: number | undefined;
  lastInputAt: number | undefined;
  readonly dir: string;
  private readonly log: Logger;
  private readonly abort = new AbortController();
  private closing = false;
  private preparing: Promise<void> | undefined;
  private endPromise: Promise<void> | undefined;
  private pendingAnswer: string | undefined;
  private disconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private limitTimer: ReturnType<typeof setInterval> | undefined;
  private restarts = { video: 0, audio: 0 };

  private xvfb: ManagedProcess | undefined;
  private displaySandbox: DisplayServer['sandbox'];
  private audioServer: AudioServer | undefined;
  private game: ManagedProcess | undefined;
  private injector: XTestInjector | undefined;
  private peer: GamePeer | undefined;
  private videoRtp: RtpReceiver | undefined;
  private audioRtp: RtpReceiver | undefined;
  private videoEncoder: ManagedProcess | undefined;
  private audioEncoder: ManagedProcess | undefined;
  private releasePackage: (() => void) | undefined;
  private disk: SessionDisk | undefined;
  private displayNumber: number;
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
    this.displayNumber = deps.display;
  }

  get state() {
    return this.lifecycle.state;
  }

  /** True from the moment the session began ending (its slot frees once the cleanup is done). */
  get ending(): boolean {
    return this.closing;
  }

  get display(): number {
    return this.displayNumber;
  }

  /** Xvfb on this session's display; a number another X server took meanwhile is swapped for a free one. */
  private async startDisplay(): Promise<DisplayServer> {
    const { config } = this.deps;
    for (let attempt = 1; ; attempt++) {
      try {
        return await startXvfb(this.serviceJail(), config.programs.xvfb, this.displayNumber, this.work.settings.width, this.work.settings.height);
      } catch (error) {
        if (attempt >= 3 || !displayInUse(this.displayNumber)) throw error;
        this.log.warn(`display :${this.displayNumber} is taken; trying another`);
        this.displayNumber = this.deps.otherDisplay();
      }
    }
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

  /**
   * The package through the chunk cache into home/game (the session's tmpfs grown to hold it first);
   * its entrypoint executable; the session's passwd, group and machine-id; the home made the game user's.
   */
  private async preparePackage(layout: SessionLayout, entrypoint: string[]): Promise<void> {
    const { config, cache, api } = this.deps;
    const packageStarted = Date.now();
    const ref = this.work.package;
    const access = await api.call(routes.cloudPlay.access, {
      params: { project: ref.project, branch: ref.branch, version: ref.version, package: ref.package },
      signal: this.abort.signal,
      retry: { tries: 3, delayMs: 1000 },
    });
    this.checkAlive();
    const prepared: PreparedPackage = await cache.prepare(
      { archiveUrl: api.resolveUrl(access.archiveUrl), indexUrl: api.resolveUrl(access.indexUrl), indexHash: access.indexHash ?? ref.indexHash },
      this.abort.signal,
    );
    this.releasePackage = cache.hold(prepared);
    this.checkAlive();
    const preparedAt = Date.now();
    await this.disk!.reserve(extractedBytes(prepared.index));
    await cache.extract(prepared, join(layout.home, 'game'));
    this.figures.packageMs = Date.now() - packageStarted;
    this.log.debug(`package: addresses and chunks ${preparedAt - packageStarted} ms, extracted in ${Date.now() - preparedAt} ms`);
    this.log.info(
      `package ready in ${this.figures.packageMs} ms (${prepared.stats.chunksFetched} chunks fetched in ${prepared.stats.rangeRequests} requests, ${prepared.stats.chunksCached} cached)`,
    );
    if (config.cacheMaxMb > 0) void cache.prune(config.cacheMaxMb * 1024 * 1024).catch(() => undefined);
    this.checkAlive();
    const entryPath = join(layout.home, 'game', ...entrypoint);
    const entryInfo = await lstat(entryPath).catch(() => undefined);
    if (!entryInfo?.isFile()) throw new Error(`the entrypoint ${entrypoint.join('/')} is not a file of the package`);
    await chmod(entryPath, 0o755);
    const uid = this.deps.uid;
    const identity = identityFiles(uid ?? process.getuid?.() ?? 1000, uid ?? process.getgid?.() ?? 1000);
    await writeFile(join(layout.etc, 'passwd'), identity.passwd, { mode: 0o644 });
    await writeFile(join(layout.etc, 'group'), identity.group, { mode: 0o644 });
    await writeFile(join(layout.etc, 'machine-id'), newMachineId(), { mode: 0o644 });
    if (uid !== undefined) {
      await chownTree(layout.home, uid);
      await lchown(layout.tmp, uid, uid);
    }
  }

  private async startXvfb(): Promise<void> {
    const display = await this.adopt(await this.startDisplay(), (server) => server.process.stop());
    this.xvfb = display.process;
    this.displaySandbox = display.sandbox;
    this.xvfb.exited.then(() => {
      if (!this.closing) void this.end('errored', `the display stopped (${this.xvfb?.stderrTail() || 'no message'})`);
    });
  }

  private async startAudioServer(): Promise<void> {
    this.audioServer = await this.adopt(await startPulse(this.serviceJail(), this.deps.config.programs.pulseaudio), (audio) => audio.process.stop());
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
    await settleAll([this.preparePackage(layout, entrypoint), this.startXvfb(), this.startAudioServer()]);
    this.checkAlive();
    // From here on the game's writes are bounded: what the package took plus the quota.
    await disk.seal();
    this.injector = await this.adopt(await XTestInjector.connect(layout.x11Socket(this.display), this.display), (injector) => injector.close());
    const uid = this.deps.uid;
    const sandbox = gameJail({
      layout,
      entrypoint,
      display: this.display,
      withSound: true,
      uid,
      limits: {
        memoryBytes: config.memoryMb * mib,
        processes: config.maxProcesses,
        fileBytes: config.maxFileMb * mib,
        openFiles: config.maxOpenFiles,
      },
      shmBytes: config.shmMb * mib,
      programs: config.programs,
      hostRoots: this.deps.hostRoots,
    });
    this.log.debug(`game: ${sandbox.entrypointInside} (display :${this.display}${uid === undefined ? '' : `, uid ${uid}`})`);
    const game = startJail('game', sandbox);
    this.game = await this.adopt(game, (process) => process.stop());
    game.exited.then((exit) => {
      if (this.closing) return;
      const early = this.state !== 'playing' && exit.code !== 0;
      if (early) void this.end('errored', `the game ended at once (${exit.signal ?? `exit code ${exit.code}`}): ${game.stderrTail() || 'no message'}`);
      else void this.end('ended', 'game_exited');
    });

    // 3. The peer, its tracks fed by ffmpeg's RTP, and the input channel.
    const peer = new GamePeer(this.work.iceServers, config.codec);
    this.peer = await this.adopt(peer, (value) => value.close());
    this.videoRtp = await this.adopt(await RtpReceiver.open((packet) => peer.writeVideo(packet)), (value) => value.close());
    this.audioRtp = await this.adopt(await RtpReceiver.open((packet) => peer.audio.writeRtp(packet)), (value) => value.close());
    peer.input.onMessage.subscribe((data) => {
      if (typeof data === 'string') return;
      const message = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      // A ping goes back as it came, on the same channel (the page times the round trip); it is no input.
      if (decodePing(message) !== undefined) {
        if (peer.input.readyState === 'open') peer.input.send(data);
        return;
      }
      const event = decodeInput(message);
      if (!event || !this.injector) return;
      if (this.injector.inject(event)) this.lastInputAt = Date.now();
    });
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
    this.startAudio();
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
        this.startVideo();
      }
    } else if (state === 'disconnected') {
      this.disconnectTimer ??= setTimeout(() => void this.end('ended', 'peer_left'), disconnectGraceMs);
    } else if (state === 'failed' || state === 'closed') {
      void this.end('ended', this.state === 'playing' ? 'peer_left' : 'not_connected');
    }
  }

  private startVideo(): void {
    if (this.closing || !this.videoRtp) return;
    const { config } = this.deps;
    const settings = this.work.settings;
    const args = videoArgs(
      { display: this.display, width: settings.width, height: settings.height, fps: settings.fps, codec: config.codec, kbps: config.videoKbps, gopSeconds: config.gopSeconds },
      this.videoRtp.port,
    );
    const encoder = startJail('ffmpeg video', encoderJail(this.serviceJail(), { display: this.display, ipcOf: this.displayIpcPid() }, [config.programs.ffmpeg, ...args]));
    this.videoEncoder = encoder;
    encoder.exited.then((exit) => {
      if (this.closing || encoder.stopRequested) return;
      if (this.restarts.video >= encoderRestarts) {
        void this.end('errored', `the video encoder failed (${exit.signal ?? `exit code ${exit.code}`}): ${encoder.stderrTail() || 'no message'}`);
        return;
      }
      this.restarts.video += 1;
      this.log.warn(`video encoder stopped (${encoder.stderrTail() || exit.code}); restarting`);
      setTimeout(() => this.startVideo(), 500);
    });
  }

  /**
   * The X server's sandbox, for its video encoder to share MIT-SHM with it: only as root (joining a
   * namespace is setns), and only while that pid still names the very namespace bubblewrap reported.
   */
  private displayIpcPid(): number | undefined {
    const sandbox = this.displaySandbox;
    if (sandbox === undefined || process.getuid?.() !== 0 || !this.xvfb?.running) return undefined;
    try {
      return readlinkSync(`/proc/${sandbox.pid}/ns/ipc`) === `ipc:[${sandbox.ipcNamespace}]` ? sandbox.pid : undefined;
    } catch {
      return undefined;
    }
  }

  private startAudio(): void {
    if (this.closing || !this.audioRtp || !this.audioServer) return;
    const { config } = this.deps;
    const encoder = startJail(
      'ffmpeg audio',
      encoderJail(this.serviceJail(), { sound: true }, [config.programs.ffmpeg, ...audioArgs(sandboxPulseSocket, config.audioKbps, this.audioRtp.port)]),
    );
    this.audioEncoder = encoder;
    encoder.exited.then((exit) => {
      if (this.closing || encoder.stopRequested) return;
      if (this.restarts.audio >= encoderRestarts) {
        this.log.warn(`audio encoder failed for good (${encoder.stderrTail() || exit.code}): the session goes on without sound`);
        return;
      }
      this.restarts.audio += 1;
      this.log.warn(`audio encoder stopped (${encoder.stderrTail() || exit.code}); restarting`);
      setTimeout(() => this.startAudio(), 500);
    });
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
      this.log.info(
        `streamed ${seconds.toFixed(1)} s: ${this.videoRtp?.packets ?? 0} video packets (${(((this.videoRtp?.bytes ?? 0) * 8) / seconds / 1000).toFixed(0)} kbit/s), ${this.audioRtp?.packets ?? 0} audio packets, ${this.peer?.pliCount ?? 0} keyframe requests, ${this.injector?.injected ?? 0} input events`,
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
    await quietly('game', () => this.game?.stop(3000));
    await quietly('encoders', () => Promise.all([this.videoEncoder?.stop(), this.audioEncoder?.stop()]));
    await quietly('peer', () => this.peer?.close());
    this.videoRtp?.close();
    this.audioRtp?.close();
    await quietly('input', () => this.injector?.close());
    await quietly('audio', () => this.audioServer?.process.stop());
    await quietly('display', () => this.xvfb?.stop());
    this.releasePackage?.();
    await quietly('session folder', () => (this.disk ? this.disk.remove() : rm(this.dir, { recursive: true, force: true })));
  }
}
