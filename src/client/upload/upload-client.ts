import { apiUrl, authorizationHeaders } from '../lib/api.ts';
import type { PackageDraft } from './package-draft.ts';
import { createResumeStore, draftFingerprint, fingerprintKey, type ResumeStore } from './resume-store.ts';
import { initialUploadState, type PackageUploadState } from '../../shared/upload/statuses.ts';
import { flattenDraft, rebuildDraft, type TransferDraft } from './tree-transfer.ts';
import { createUploadQueue, type UploadEvent, type UploadQueue } from './upload-queue.ts';
import type { WorkerMessage, WorkerRequest } from './worker/protocol.ts';

type Listener = (state: PackageUploadState) => void;

/** Where the work runs: the upload worker, or (no Worker support) this thread as a last resort. */
type Engine = { add(id: string, project: string, draft: TransferDraft, resume: ReturnType<ResumeStore['load']>): void; cancel(id: string): void };

/**
 * Where uploads run: 'worker' (the normal case), 'main_thread' (a browser without module workers
 * whose worker did not start either) or 'failed' (the worker should have run and did not: uploads
 * error out rather than freeze the page). Shown as data-upload-worker on the packages list.
 */
type UploadEngineMode = 'worker' | 'main_thread' | 'failed';

export type UploadClient = {
  /** Starts uploading a draft; `onState` hears every state until done or errored. */
  start(project: string, draft: PackageDraft, onState: Listener): Promise<string>;
  /**
   * Stops an upload that is still running: the worker deletes the package record it made, and its
   * resume state is forgotten. One that finished (done or errored) is left alone: a done package may
   * already be in use.
   */
  cancel(id: string): void;
  /** null until the first upload starts the engine. */
  mode(): UploadEngineMode | null;
  onMode(listener: () => void): () => void;
};

declare const CARTRIDGE_UPLOAD_WORKER_URL: string | undefined;

/**
 * The worker script (its own bundle, src/server/http/worker-assets.ts): in the compiled binary a
 * hashed, immutably cached path that build-binary.ts defines; from source the fixed, revalidated one.
 */
const workerUrl = typeof CARTRIDGE_UPLOAD_WORKER_URL === 'string' ? CARTRIDGE_UPLOAD_WORKER_URL : '/upload-worker.js';
const READY_TIMEOUT_MS = 15_000;

function apiConfig() {
  const origin = apiUrl('') || globalThis.location.origin;
  const token = authorizationHeaders().authorization?.replace(/^Bearer /, '') ?? null;
  return { origin, token };
}

type Started = { engine: Engine; failure?: undefined } | { failure: string; moduleWorkers: boolean };

async function startWorker(onEvent: (event: UploadEvent) => void): Promise<Started> {
  if (typeof Worker === 'undefined') return { failure: 'this browser has no Web Workers', moduleWorkers: false };
  // A browser that knows module workers reads `type` from the options; one that does not ignores it
  // (and runs the script as a classic worker, which the bundle also supports).
  let moduleWorkers = false;
  let worker: Worker;
  try {
    worker = new Worker(workerUrl, {
      name: 'upload',
      get type() {
        moduleWorkers = true;
        return 'module' as const;
      },
    });
  } catch (error) {
    return { failure: `new Worker(${workerUrl}) threw ${String(error)}`, moduleWorkers };
  }
  const failure = await new Promise<string | null>((resolve) => {
    const timer = setTimeout(() => resolve(`${workerUrl} sent no 'ready' within ${READY_TIMEOUT_MS / 1000} s`), READY_TIMEOUT_MS);
    worker.addEventListener(
      'error',
      (event) => {
        clearTimeout(timer);
        resolve(`${workerUrl} failed to load or start${event.message ? `: ${event.message}` : ' (see the network panel)'}`);
      },
      { once: true },
    );
    worker.addEventListener('message', (event: MessageEvent<WorkerMessage>) => {
      if (event.data.type === 'ready') {
        clearTimeout(timer);
        resolve(null);
      } else onEvent(event.data);
    });
  });
  if (failure !== null) {
    worker.terminate();
    return { failure, moduleWorkers };
  }
  worker.addEventListener('error', (event) => console.error(`Upload worker error: ${event.message}`));
  const post = (request: WorkerRequest) => worker.postMessage(request);
  return {
    engine: {
      add: (id, project, draft, resume) => post({ type: 'add', id, project, api: apiConfig(), draft, resume }),
      cancel: (id) => post({ type: 'cancel', id }),
    },
  };
}

function inlineEngine(onEvent: (event: UploadEvent) => void): Engine {
  let queue: UploadQueue | undefined;
  return {
    add(id, project, draft, resume) {
      queue ??= createUploadQueue({ api: apiConfig(), onEvent });
      void queue.add(id, { project, draft: rebuildDraft(draft), resume });
    },
    cancel: (id) => queue?.cancel(id),
  };
}

/** The worker should have run and did not: each upload ends errored at once (the next one tries again). */
function failedEngine(onEvent: (event: UploadEvent) => void): Engine {
  return {
    add: (id) => onEvent({ type: 'state', id, state: { ...initialUploadState(), status: 'errored', error: 'unexpected_error' } }),
    cancel: () => {},
  };
}

let client: UploadClient | undefined;
let counter = 0;

/** The page's one upload client: a single worker shares the spec §9 limits between every package. */
export function getUploadClient(store: ResumeStore = createResumeStore()): UploadClient {
  if (client) return client;
  const listeners = new Map<string, { key: string; listener: Listener; cancelled: boolean }>();
  const onEvent = (event: UploadEvent) => {
    const entry = listeners.get(event.id);
    if (!entry) return;
    // A cancelled upload's record is deleted: there is nothing to resume.
    if (event.type === 'created') {
      if (!entry.cancelled) store.save(entry.key, event.resume);
    } else if (event.type === 'part') {
      if (!entry.cancelled) store.addPart(entry.key, event.descriptor);
    } else {
      if (event.state.status === 'done' || (entry.cancelled && event.state.status === 'errored')) store.remove(entry.key);
      entry.listener(event.state);
      if (event.state.status === 'done' || event.state.status === 'errored') listeners.delete(event.id);
    }
  };
  let engine: Promise<Engine> | undefined;
  let mode: UploadEngineMode | null = null;
  const modeListeners = new Set<() => void>();
  const setMode = (next: UploadEngineMode) => {
    mode = next;
    for (const listener of modeListeners) listener();
  };
  const startEngine = async (): Promise<Engine> => {
    const started = await startWorker(onEvent);
    if (started.failure === undefined) {
      setMode('worker');
      return started.engine;
    }
    if (!started.moduleWorkers) {
      // Loud on purpose: on the main thread, packing and hashing a big package freezes the page.
      console.warn(`Uploads run on the main thread (this browser has no module workers; the page may freeze on big uploads): ${started.failure}`);
      setMode('main_thread');
      return inlineEngine(onEvent);
    }
    console.error(`The upload worker did not start, uploads fail until it does: ${started.failure}`);
    engine = undefined;
    setMode('failed');
    return failedEngine(onEvent);
  };
  client = {
    async start(project, draft, onState) {
      const id = `upload-${++counter}`;
      const transfer = await flattenDraft(draft);
      const key = await fingerprintKey(draftFingerprint(project, transfer));
      listeners.set(id, { key, listener: onState, cancelled: false });
      const running = (engine ??= startEngine());
      (await running).add(id, project, transfer, store.load(key));
      return id;
    },
    cancel(id) {
      const entry = listeners.get(id);
      if (!entry || entry.cancelled) return;
      entry.cancelled = true;
      store.remove(entry.key);
      void engine?.then((running) => running.cancel(id));
    },
    mode: () => mode,
    onMode(listener) {
      modeListeners.add(listener);
      return () => modeListeners.delete(listener);
    },
  };
  return client;
}
