import { chmod, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError, createApiClient, routes, type ApiClient } from '../../src/shared/api/index.ts';
import { sleep } from '../../src/shared/sleep.ts';
import { machineProvideReplySchema, type MachineProvideReply, type MachineSessionReport, type MachineWork } from '../../src/shared/schemas/cloud-play.ts';
import { agentVersion, type AgentConfig } from './config.ts';
import { displayInUse } from './display.ts';
import { describeError, type Logger } from './log.ts';
import { openChunkCache, type ChunkCache, type ChunkCacheOptions } from './package-cache.ts';
import { readHostRoots } from './jail.ts';
import { missingCapabilities, type AgentCapability } from './privileges.ts';
import { unmountLeftovers } from './session-disk.ts';
import type { StartWork } from './session/control.ts';
import { Session } from './session/session.ts';

/**
 * Reconnection, ±20 % jitter. While the server cannot be reached (no answer, a 5xx: it is restarting or
 * being upgraded) 1 s, then every 2 s: the server counts a machine silent past its
 * CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS (30 s by default) as lost, so the agent must be back within a
 * few seconds of the server. While the token is refused (401, 403: revoked or wrong) 1 s doubling
 * up to 60 s: asking faster changes nothing.
 */
export function backoffMs(failures: number, refused: boolean): number {
  const cap = refused ? 60_000 : 2000;
  const base = Math.min(cap, 1000 * 2 ** Math.max(0, failures - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** Session k's servers and encoders run as uid base + 64 + k (capacity is at most 64). */
const serviceUidOffset = 64;

/**
 * A held call that outlives the heartbeat by this much is taken as lost (a silent network, a server
 * that vanished without closing the connection): with the 20 s heartbeat and the 30 s machine timeout
 * of the defaults, the agent then calls again before the server counts it lost.
 */
const pollMarginMs = 5000;
/** Until the first reply says otherwise. */
const defaultHeartbeatMs = 20_000;

export type AgentOptions = {
  log: Logger;
  /** The API's fetch (tests count requests); the chunk cache gets its own in cacheOptions. */
  fetch?: typeof fetch;
  cacheOptions?: ChunkCacheOptions;
};

/**
 * The host agent: the provide loop (heartbeat and long poll), its sessions up to the capacity, and a
 * clean shutdown. Work items are handled idempotently (a start for a known session, a second answer,
 * a stop for a session already gone change nothing), so a server may repeat them.
 *
 * Two kinds of calls: the long poll (wait: true), always one out; and, whenever a session's state
 * changes, a report (wait: false) at once, so a player never waits on the held call for the offer.
 * Both carry every session's state and both replies' work is handled.
 */
export class Agent {
  readonly sessions = new Map<string, Session>();
  /** Final reports not yet delivered by a successful call. */
  private readonly finals = new Map<string, MachineSessionReport>();
  /**
   * Starts waiting for a slot that a session still cleaning up holds: the server counts a session it
   * ended as gone at once, while its processes take a moment to stop here.
   */
  private readonly queued = new Map<string, StartWork>();
  /** Sessions that ended here (a repeated start for one of them is ignored). */
  private readonly ended = new Set<string>();
  private readonly slots: (Session | undefined)[];
  private readonly api: ApiClient;
  private readonly log: Logger;
  private cache: ChunkCache | undefined;
  private hostRoots: Record<string, string> = {};
  private heartbeatMs = defaultHeartbeatMs;
  private readonly shutdownController = new AbortController();
  private stopping = false;
  private reporting: Promise<void> | undefined;
  private reportAgain = false;
  private loop: Promise<void> | undefined;
  private failures = 0;
  /** Figures for tests: successful provide calls, and whether the server is reachable now. */
  calls = 0;
  connected = false;

  constructor(
    readonly config: AgentConfig,
    private readonly options: AgentOptions,
  ) {
    this.slots = new Array(config.capacity).fill(undefined);
    this.log = options.log;
    this.api = createApiClient({ baseUrl: config.server, auth: () => config.token, fetch: options.fetch });
  }

  /** Whether the games run as per-session uids (the agent is root and --sandbox-uid-base is set). */
  get switchesUser(): boolean {
    return this.config.sandboxUidBase !== null && process.getuid?.() === 0;
  }

  async start(): Promise<void> {
    const { config } = this;
    await mkdir(config.workDir, { recursive: true, mode: 0o711 });
    if (this.switchesUser) {
      // The games' users must pass through the work dir to their own session folders.
      const info = await stat(config.workDir);
      if ((info.mode & 0o011) !== 0o011) await chmod(config.workDir, info.mode | 0o011);
    }
    if (config.sessionDiskMb > 0 && process.getuid?.() !== 0) {
      throw new Error('the session disk quota (--session-disk-mb) mounts a tmpfs per session, which needs root: run the agent as root, or pass --session-disk-mb 0 to let games write to the work dir without a bound');
    }
    const wanted: AgentCapability[] = [
      ...(this.switchesUser ? (['setuid', 'setgid', 'chown', 'dac_override', 'kill'] as const) : []),
      ...(config.sessionDiskMb > 0 ? (['sys_admin'] as const) : []),
    ];
    const missing = missingCapabilities(wanted);
    if (missing.length > 0) {
      throw new Error(`the agent runs as root without the capabilities ${missing.join(', ')}: a session needs ${wanted.join(', ')} (see "Least privilege" in the hosts guide)`);
    }
    const sessionsDir = join(config.workDir, 'sessions');
    await mkdir(sessionsDir, { recursive: true, mode: 0o711 });
    await chmod(sessionsDir, 0o711);
    // Folders of sessions an earlier run left (a crash, a power cut) go, their tmpfs first: their
    // processes died with it (every jail dies with the agent).
    const leftovers = await unmountLeftovers(sessionsDir, config.programs);
    if (leftovers > 0) this.log.info(`unmounted ${leftovers} session folder(s) an earlier run left`);
    for (const name of await readdir(sessionsDir)) await rm(join(sessionsDir, name), { recursive: true, force: true });
    this.cache = await openChunkCache(join(config.workDir, 'cache'), { log: this.log, ...this.options.cacheOptions });
    this.hostRoots = readHostRoots();
    this.log.info(
      `${agentVersion} serving ${config.server} with capacity ${config.capacity}, work dir ${config.workDir}, codec ${config.codec}` +
        (this.switchesUser ? `, games as uids ${config.sandboxUidBase}+` : ', games as the agent user'),
    );
    this.loop = this.pollLoop();
  }

  private reports(): MachineSessionReport[] {
    const live = [...this.sessions.values()].map((session) => session.lifecycle.report());
    const waiting = [...this.queued.keys()].map((session): MachineSessionReport => ({ session, state: 'preparing' }));
    return [...live, ...waiting, ...this.finals.values()].slice(0, 64);
  }

  /** One provide call; its work is handled. Throws on failure. */
  private async provide(wait: boolean, signal: AbortSignal): Promise<MachineProvideReply> {
    const sessions = this.reports();
    const reply = await this.api.call(routes.cloudPlay.provide, {
      body: { capacity: this.stopping ? 0 : this.config.capacity, agentVersion, sessions, wait },
      signal: AbortSignal.any([signal, AbortSignal.timeout((wait ? this.heartbeatMs : 0) + pollMarginMs)]),
      retry: false,
    });
    const parsed = machineProvideReplySchema.parse(reply);
    this.calls += 1;
    if (!this.connected) this.log.info('connected to the server');
    this.connected = true;
    this.failures = 0;
    // Delivered: a final report stays only if it changed meanwhile (it never does: finals are final).
    for (const report of sessions) if (report.state === 'ended' || report.state === 'errored') this.finals.delete(report.session);
    this.heartbeatMs = Math.max(1000, Math.min(parsed.heartbeatMs, 120_000));
    for (const work of parsed.work) this.handle(work);
    return parsed;
  }

  private async pollLoop(): Promise<void> {
    const signal = this.shutdownController.signal;
    while (!this.stopping) {
      const began = Date.now();
      try {
        // The first call, and the first after a failure, is answered at once (the server learns the
        // sessions' states and the agent that it is connected); then the long poll.
        const wait = this.connected;
        const reply = await this.provide(wait, signal);
        // A server that answers a held call at once with nothing to do is not asked again at once.
        const elapsed = Date.now() - began;
        const floor = Math.min(1000, this.heartbeatMs / 4);
        if (wait && reply.work.length === 0 && elapsed < floor) await this.sleep(floor - elapsed);
      } catch (error) {
        if (this.stopping) break;
        this.failures += 1;
        const refused = error instanceof ApiError && (error.status === 401 || error.status === 403);
        const delay = backoffMs(this.failures, refused);
        if (this.connected || this.failures === 1 || refused) {
          this.log.warn(
            refused
              ? `the server refused the machine token (${error instanceof ApiError ? error.code : ''}): revoked or wrong? trying again in ${Math.round(delay / 1000)} s`
              : `cannot reach the server (${describeError(error)}); trying again in ${Math.round(delay / 1000)} s`,
          );
        }
        this.connected = false;
        await this.sleep(delay);
      }
    }
  }

  /** Waits `ms`, or less once the agent shuts down. */
  private sleep(ms: number): Promise<void> {
    return sleep(ms, this.shutdownController.signal).catch(() => {});
  }

  /** A report call now (one at a time; changes during one cause another). */
  private reportSoon(): void {
    if (this.stopping) return;
    if (this.reporting) {
      this.reportAgain = true;
      return;
    }
    this.reporting = (async () => {
      do {
        this.reportAgain = false;
        try {
          await this.provide(false, this.shutdownController.signal);
        } catch (error) {
          // The long poll carries the state on its next call.
          if (!this.stopping) this.log.debug(`report failed: ${describeError(error)}`);
          break;
        }
      } while (this.reportAgain && !this.stopping);
      this.reporting = undefined;
    })();
  }

  private handle(work: MachineWork): void {
    switch (work.kind) {
      case 'start':
        this.startSession(work);
        break;
      case 'answer':
        void this.sessions.get(work.session)?.applyAnswer(work.sdp);
        break;
      case 'stop': {
        const session = this.sessions.get(work.session);
        if (session) void session.stop('stopped');
        else if (this.queued.delete(work.session)) {
          this.finals.set(work.session, { session: work.session, state: 'ended', reason: 'stopped' });
          this.ended.add(work.session);
          this.reportSoon();
        } else if (!this.ended.has(work.session) && !this.finals.has(work.session)) {
          // Unknown here (lost in a restart): say it is over.
          this.finals.set(work.session, { session: work.session, state: 'ended', reason: 'stopped' });
          this.ended.add(work.session);
          this.reportSoon();
        }
        break;
      }
    }
  }

  /** The display for slot `index`: base + index, or the next number no X server (nor session of ours) holds. */
  private displayFor(index: number, also: number[] = []): number {
    const taken = new Set([...this.sessions.values()].map((session) => session.display).concat(also));
    let display = this.config.displayBase + index;
    while (taken.has(display) || displayInUse(display)) display += this.config.capacity || 1;
    return display;
  }

  private startSession(work: StartWork): void {
    if (this.sessions.has(work.session) || this.queued.has(work.session) || this.ended.has(work.session) || this.finals.has(work.session) || this.stopping) return;
    const slot = this.slots.findIndex((session) => session === undefined);
    if (slot < 0 && this.slots.some((session) => session?.ending) && this.queued.size < this.slots.filter((session) => session?.ending).length) {
      this.log.info(`session ${work.session}: waiting for a session to finish ending`);
      this.queued.set(work.session, work);
      this.reportSoon();
      return;
    }
    if (slot < 0 || !this.cache) {
      this.finals.set(work.session, { session: work.session, state: 'errored', reason: `this machine is full (capacity ${this.config.capacity})` });
      this.ended.add(work.session);
      this.reportSoon();
      return;
    }
    let session: Session;
    try {
      session = new Session(work, {
        config: this.config,
        cache: this.cache,
        api: this.api,
        log: this.log,
        display: this.displayFor(slot),
        otherDisplay: () => this.displayFor(slot, [session.display]),
        uid: this.switchesUser ? this.config.sandboxUidBase! + slot : undefined,
        serviceUid: this.switchesUser ? this.config.sandboxUidBase! + serviceUidOffset + slot : undefined,
        hostRoots: this.hostRoots,
        onChange: () => this.reportSoon(),
        onFinished: (finished) => this.finished(finished, slot),
      });
    } catch (error) {
      this.finals.set(work.session, { session: work.session, state: 'errored', reason: describeError(error) });
      this.ended.add(work.session);
      this.reportSoon();
      return;
    }
    this.slots[slot] = session;
    this.sessions.set(session.id, session);
    this.log.info(`session ${session.id}: starting ${work.package.title} (${work.settings.width}x${work.settings.height} at ${work.settings.fps} fps) on display :${session.display}`);
    this.reportSoon();
    void session.run();
  }

  private finished(session: Session, slot: number): void {
    if (this.slots[slot] === session) this.slots[slot] = undefined;
    this.sessions.delete(session.id);
    this.ended.add(session.id);
    if (this.ended.size > 10_000) this.ended.delete(this.ended.values().next().value!);
    this.finals.set(session.id, session.lifecycle.report());
    this.log.info(`session ${session.id}: ${session.state} (${session.lifecycle.reason ?? ''})`);
    const [next] = this.queued.values();
    if (next && !this.stopping) {
      this.queued.delete(next.session);
      this.startSession(next);
    }
    this.reportSoon();
  }

  /** Ends every session (machine_shutdown), reports them with capacity 0, and stops calling. */
  async shutdown(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.log.info(`shutting down: ending ${this.sessions.size} session(s)`);
    this.shutdownController.abort();
    for (const session of this.queued.keys()) this.finals.set(session, { session, state: 'ended', reason: 'machine_shutdown' });
    this.queued.clear();
    await Promise.all([...this.sessions.values()].map((session) => session.stop('machine_shutdown')));
    await this.loop?.catch(() => undefined);
    await this.reporting?.catch(() => undefined);
    try {
      await this.api.call(routes.cloudPlay.provide, {
        body: { capacity: 0, agentVersion, sessions: [...this.finals.values()].slice(0, 64), wait: false },
        signal: AbortSignal.timeout(5000),
        retry: false,
      });
      this.finals.clear();
    } catch (error) {
      this.log.warn(`could not report the shutdown: ${describeError(error)}`);
    }
    this.log.info('stopped');
  }
}
