import type { Deps } from '../../../deps.ts';
import { AppError } from '../../../errors.ts';
import { FairQueue } from './fair-queue.ts';
import { ImageWorkerProcess } from './worker-process.ts';

/**
 * The image work of one server: its fair queue (fair-queue.ts: IMAGE_WORKER_CONCURRENCY images at once,
 * one per user, users in turn) in front of its image worker process (worker-process.ts). Made on first
 * use, one per server, stopped with the server (boot.ts closeDeps). Known by the server's blob store:
 * the one object every Deps of the server shares (serve.ts gives its routes a Config of its own).
 */
export type ImageWork = { queue: FairQueue; worker: ImageWorkerProcess };

type ServerDeps = Pick<Deps, 'config' | 'log' | 'storage'>;

const servers = new WeakMap<Deps['storage'], ImageWork>();

export function imageWorkOf(deps: ServerDeps): ImageWork {
  let work = servers.get(deps.storage);
  if (!work) {
    const { concurrency, threads, memoryBytes } = deps.config.contentImages.worker;
    work = { queue: new FairQueue(concurrency), worker: new ImageWorkerProcess({ threads, memoryBytes, log: deps.log }) };
    servers.set(deps.storage, work);
  }
  return work;
}

export async function stopImageWork(deps: Pick<Deps, 'storage'>): Promise<void> {
  const work = servers.get(deps.storage);
  servers.delete(deps.storage);
  await work?.worker.stop();
}

export function imageLibraryUnavailable(reason: string): AppError {
  return new AppError('not_supported', `Images cannot be processed on this server: its image library (sharp) did not load (${reason})`);
}

/** not_supported when the worker's image library cannot load (asked before anything is sent). */
export async function requireImageLibrary(deps: ServerDeps): Promise<void> {
  const end = await imageWorkOf(deps).worker.ready();
  if (end?.type === 'unavailable') throw imageLibraryUnavailable(end.reason);
  if (end) throw workerStopped();
}

export function workerStopped(): AppError {
  return new AppError('timeout', 'The image worker stopped while it processed this image: finalize again');
}

/** The memory cap's refusal: the image itself needs more than one image may take here. */
export function tooMuchMemory(deps: Pick<Deps, 'config'>): string {
  return `The image needs more memory to process than this server gives one image (IMAGE_WORKER_MEMORY_MB = ${Math.round(deps.config.contentImages.worker.memoryBytes / 1024 / 1024)}): send a smaller image`;
}

/**
 * `work` as its caller hears it: its result, or after IMAGE_FINALIZE_WAIT_SECONDS a timeout saying the
 * image is still queued (the work goes on; calling again joins it, FairQueue's key).
 */
export async function withinWait<T>(deps: Pick<Deps, 'config'>, work: Promise<T>): Promise<T> {
  // The work may fail after its caller stopped listening: that is told to whoever asks next.
  work.catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AppError('timeout', 'The server is busy processing other images: this one waits its turn, finalize again to keep waiting')),
      deps.config.contentImages.finalizeWaitMs,
    );
  });
  try {
    return await Promise.race([work, waited]);
  } finally {
    clearTimeout(timer);
  }
}
