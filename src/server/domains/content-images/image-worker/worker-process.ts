import { setPriority } from 'node:os';
import { join } from 'node:path';
import { runsCompiled } from '../../../config.ts';
import type { Logger } from '../../../logger.ts';
import { imageWorkerCommand, memoryCapExitCode, workerEnv, type WorkerMessage, type WorkerOutput, type WorkerRequest } from './protocol.ts';

/**
 * The server's side of the image worker (worker-main.ts), one long-lived child per server spoken to
 * over Bun's IPC (protocol.ts, 'advanced' serialisation). The child gets none of the server's
 * environment but PATH/HOME/TMPDIR, its own UV_THREADPOOL_SIZE and MALLOC_ARENA_MAX=2, and runs at
 * nice 10. Ending past its memory cap (IMAGE_WORKER_MEMORY_MB, memoryCapExitCode) refuses the image it
 * held; any other end fails its images as stopped (the service answers timeout: finalize again) and the
 * next request starts a fresh worker; a worker left past half its cap is retired when idle. The
 * encodings stream back one message each, stored as they come.
 */
export type WorkerSettings = { memoryBytes: number; threads: number; log: Logger };

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type WorkRequest = DistributiveOmit<WorkerRequest, 'id'>;

/** How one request ended, told to its caller (the service turns these into its errors). */
export type WorkEnd =
  | { type: 'done'; made: unknown }
  | { type: 'refused'; message: string; details?: unknown }
  /** The worker's own failure, or storing an output failed here (cause: that error, e.g. a full disk). */
  | { type: 'failed'; message: string; cause?: unknown }
  | { type: 'unavailable'; reason: string }
  /** The worker grew past its memory cap while this request was in it. */
  | { type: 'memory' }
  /** The worker process ended otherwise (killed, crashed). */
  | { type: 'stopped'; exitCode: number | null; signal: string | null };

type InFlight = { onOutput: (output: WorkerOutput, bytes: Uint8Array) => Promise<void>; stored: Promise<void>; end: (end: WorkEnd) => void };

type Child = {
  process: Bun.Subprocess;
  /** Settles once: undefined when the worker said it is ready, else how it ended first. */
  ready: Promise<WorkEnd | undefined>;
  becameReady: (end: WorkEnd | undefined) => void;
  inFlight: Map<number, InFlight>;
};

/** Niceness of the worker: the server's own threads come first when both want the cores. */
const workerPriority = 10;

/**
 * The long-lived image worker process (worker-main.ts) seen from the server: started on first use,
 * started again on the next request after it died or passed its memory cap (whatever it was working
 * on ends as 'memory' or 'stopped', never left waiting). Requests are numbered; each one's outputs
 * are handed to its onOutput one after the other before its end is told.
 */
export class ImageWorkerProcess {
  private child: Child | undefined;
  private nextId = 1;
  private stopped = false;

  constructor(private readonly settings: WorkerSettings) {}

  /** Starts the worker if needed: undefined once it is ready, else how it ended (unavailable: no image library there). */
  async ready(): Promise<WorkEnd | undefined> {
    if (this.stopped) return { type: 'stopped', exitCode: null, signal: null };
    return this.start().ready;
  }

  async run(request: WorkRequest, onOutput: InFlight['onOutput']): Promise<WorkEnd> {
    if (this.stopped) return { type: 'stopped', exitCode: null, signal: null };
    const child = this.start();
    const notReady = await child.ready;
    if (notReady) return notReady;
    const id = this.nextId++;
    return new Promise<WorkEnd>((resolve) => {
      child.inFlight.set(id, { onOutput, stored: Promise.resolve(), end: resolve });
      child.process.send({ ...request, id } as WorkerRequest);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const child = this.child;
    this.child = undefined;
    if (!child) return;
    child.process.kill();
    await child.process.exited;
  }

  private start(): Child {
    // One that ended but whose exit is not handled yet (killed a moment ago) is not used.
    if (this.child && this.child.process.exitCode === null && this.child.process.signalCode === null && !this.child.process.killed) return this.child;
    const command = runsCompiled() ? [process.execPath, imageWorkerCommand] : [process.execPath, join(import.meta.dir, 'worker-main.ts')];
    let becameReady: (end: WorkEnd | undefined) => void = () => undefined;
    const ready = new Promise<WorkEnd | undefined>((resolve) => (becameReady = resolve));
    const { threads, memoryBytes } = this.settings;
    const child: Child = { process: undefined as unknown as Bun.Subprocess, ready, becameReady, inFlight: new Map() };
    child.process = Bun.spawn(command, {
      // Only what the worker needs: none of the server's secrets or database settings.
      env: {
        ...(process.env.PATH ? { PATH: process.env.PATH } : {}),
        ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
        ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
        // Its own libuv pool, for sharp's pipelines (several at once while a width is resized and encoded).
        UV_THREADPOOL_SIZE: String(Math.max(4, threads)),
        // Fewer malloc arenas: libvips' threads otherwise leave memory spread over many (sharp's advice).
        MALLOC_ARENA_MAX: '2',
        [workerEnv.memoryBytes]: String(memoryBytes),
        [workerEnv.threads]: String(threads),
      },
      stdin: 'ignore',
      stdout: 'inherit',
      stderr: 'inherit',
      serialization: 'advanced',
      ipc: (message: WorkerMessage) => this.receive(child, message),
      onExit: (_subprocess, exitCode, signalCode) => this.exited(child, exitCode, signalCode === null ? null : String(signalCode)),
    });
    try {
      setPriority(child.process.pid, workerPriority);
    } catch {
      // Not allowed here (some containers): it still runs in its own process.
    }
    this.child = child;
    this.settings.log.debug('image worker started', { pid: child.process.pid });
    return child;
  }

  private receive(child: Child, message: WorkerMessage): void {
    if (message.type === 'ready') return child.becameReady(undefined);
    if (message.type === 'unavailable') return child.becameReady({ type: 'unavailable', reason: message.reason });
    const request = child.inFlight.get(message.id);
    if (!request) return;
    if (message.type === 'output') {
      request.stored = request.stored.then(() => request.onOutput(message.output, message.bytes));
      // A failed store is told when the request ends, not as an unhandled rejection meanwhile.
      request.stored.catch(() => undefined);
      return;
    }
    child.inFlight.delete(message.id);
    if (message.type === 'done') this.retireIfLarge(child, message.rss);
    const end: WorkEnd =
      message.type === 'done' ? { type: 'done', made: message.made } : message.type === 'refused' ? { type: 'refused', message: message.message, details: message.details } : { type: 'failed', message: message.message };
    request.stored.then(
      () => request.end(end),
      (error: unknown) => request.end({ type: 'failed', message: error instanceof Error ? error.message : String(error), cause: error }),
    );
  }

  /**
   * libvips' and malloc's memory is not all given back after a large image (a 20 MP one left the
   * worker at 0.3-0.5 GB): an idle worker past half its cap is stopped; the next image starts a fresh one.
   */
  private retireIfLarge(child: Child, rss: number): void {
    if (this.child !== child || child.inFlight.size > 0 || this.settings.memoryBytes <= 0 || rss <= this.settings.memoryBytes / 2) return;
    this.child = undefined;
    child.process.kill();
  }

  private exited(child: Child, exitCode: number | null, signal: string | null): void {
    if (this.child === child) this.child = undefined;
    const end: WorkEnd = exitCode === memoryCapExitCode ? { type: 'memory' } : { type: 'stopped', exitCode, signal };
    child.becameReady(end);
    if (child.inFlight.size > 0) this.settings.log.info('image worker ended', { pid: child.process.pid, exitCode, signal, images: child.inFlight.size });
    for (const request of child.inFlight.values()) {
      // What it stored before it ended is under the image's own keys: finalize again overwrites them.
      request.stored.then(
        () => request.end(end),
        () => request.end(end),
      );
    }
    child.inFlight.clear();
  }
}
