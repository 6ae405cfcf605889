import { setPriority } from 'node:os';
import { join } from 'node:path';
import { runsCompiled } from '../../../config.ts';
import type { Logger } from '../../../logger.ts';
import { imageWorkerCommand, memoryCapExitCode, workerEnv, type WorkerMessage, type WorkerOutput, type WorkerRequest } from './protocol.ts';

export type WorkerSettings = { memoryBytes: number; threads: number; log: Logger };

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type WorkRequest = DistributiveOmit<WorkerRequest, 'id'>;

/** How one request ended, told to its caller (the service turns these into its errors). */
export type WorkEnd =
  | { type: 'done'; made: unknown }
  | { type: 'refused'; message: string; details?: unknown }
  | { type: 'failed'; message: string }
  | { type: 'unavailable'; reason: string }
  /** The worker grew past its memory cap while this request was in it. */
  | { type: 'memory' }
  /** The worker process ended otherwise (killed, crashed). */
  | { type: 'stopped'; exitCode: number | null; signal: string | null };

type InFlight = { onOutput: (output: WorkerOutput, bytes: Uint8Array) => Promise<void>; stored: Promise<void>; end: (end: WorkEnd) => void };

type Child = { process: Bun.Subprocess; ready: Promise<WorkEnd | undefined> };

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
  private readonly inFlight = new Map<number, InFlight>();
  private nextId = 1;
  private stopped = false;

  constructor(private readonly settings: WorkerSettings) {}

  /** Starts the worker if needed: undefined once it is ready, else how it ended (unavailable: no image library there). */
  async ready(): Promise<WorkEnd | undefined> {
    return this.start().ready;
  }

  async run(request: WorkRequest, onOutput: InFlight['onOutput']): Promise<WorkEnd> {
    if (this.stopped) return { type: 'stopped', exitCode: null, signal: null };
    const child = this.start();
    const unavailable = await child.ready;
    if (unavailable) return unavailable;
    const id = this.nextId++;
    return new Promise<WorkEnd>((resolve) => {
      this.inFlight.set(id, { onOutput, stored: Promise.resolve(), end: resolve });
      child.process.send({ ...request, id } as WorkerRequest);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const child = this.child;
    if (!child) return;
    child.process.kill();
    await child.process.exited;
  }

  private start(): Child {
    if (this.child) return this.child;
    const command = runsCompiled() ? [process.execPath, imageWorkerCommand] : [process.execPath, join(import.meta.dir, 'worker-main.ts')];
    let becameReady: (end: WorkEnd | undefined) => void = () => undefined;
    const ready = new Promise<WorkEnd | undefined>((resolve) => (becameReady = resolve));
    const threads = this.settings.threads;
    const subprocess = Bun.spawn(command, {
      // Only what the worker needs: none of the server's secrets or database settings.
      env: {
        ...(process.env.PATH ? { PATH: process.env.PATH } : {}),
        ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
        ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
        // Its own libuv pool: at least one thread per format encoded at once (encode.ts), one per libvips thread.
        UV_THREADPOOL_SIZE: String(Math.max(4, threads)),
        [workerEnv.memoryBytes]: String(this.settings.memoryBytes),
        [workerEnv.threads]: String(threads),
      },
      stdin: 'ignore',
      stdout: 'inherit',
      stderr: 'inherit',
      serialization: 'advanced',
      ipc: (message: WorkerMessage) => this.receive(message, becameReady),
      onExit: (_subprocess, exitCode, signalCode) => this.exited(child, exitCode, signalCode === null ? null : String(signalCode), becameReady),
    });
    const child: Child = { process: subprocess, ready };
    try {
      setPriority(subprocess.pid, workerPriority);
    } catch {
      // Not allowed here (some containers): it still runs in its own process.
    }
    this.child = child;
    this.settings.log.debug('image worker started', { pid: subprocess.pid });
    return child;
  }

  private receive(message: WorkerMessage, becameReady: (end: WorkEnd | undefined) => void): void {
    if (message.type === 'ready') return becameReady(undefined);
    if (message.type === 'unavailable') return becameReady({ type: 'unavailable', reason: message.reason });
    const request = this.inFlight.get(message.id);
    if (!request) return;
    if (message.type === 'output') {
      request.stored = request.stored.then(() => request.onOutput(message.output, message.bytes));
      return;
    }
    this.inFlight.delete(message.id);
    const end: WorkEnd = message.type === 'done' ? { type: 'done', made: message.made } : message.type === 'refused' ? { type: 'refused', message: message.message, details: message.details } : { type: 'failed', message: message.message };
    request.stored.then(
      () => request.end(end),
      (error: unknown) => request.end({ type: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
  }

  private exited(child: Child, exitCode: number | null, signal: string | null, becameReady: (end: WorkEnd | undefined) => void): void {
    if (this.child === child) this.child = undefined;
    const end: WorkEnd = exitCode === memoryCapExitCode ? { type: 'memory' } : { type: 'stopped', exitCode, signal };
    becameReady(end);
    if (!this.stopped) this.settings.log.info('image worker ended', { pid: child.process.pid, exitCode, signal, images: this.inFlight.size });
    for (const [id, request] of this.inFlight) {
      this.inFlight.delete(id);
      // What it stored before it ended is its own keys: the caller's failure path removes or keeps them.
      request.stored.then(
        () => request.end(end),
        () => request.end(end),
      );
    }
  }
}
