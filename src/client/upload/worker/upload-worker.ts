import { createUploadQueue, type UploadQueue } from '../upload-queue.ts';
import { rebuildDraft } from '../tree-transfer.ts';
import type { WorkerMessage, WorkerRequest } from './protocol.ts';

/**
 * The upload worker: packing, hashing and part uploads run here so the page never freezes. This file
 * is the entry of its own self-contained bundle (src/server/http/worker-assets.ts builds and serves
 * it); the app never imports it. It has no imports or exports left once bundled, so it runs as a
 * module worker and as a classic one alike.
 */
type WorkerScope = { postMessage(message: WorkerMessage): void; addEventListener(type: 'message', listener: (event: MessageEvent<WorkerRequest>) => void): void };

const worker = globalThis as unknown as WorkerScope;
const queues = new Map<string, UploadQueue>();
const owners = new Map<string, UploadQueue>();

function queueFor(origin: string, token: string | null): UploadQueue {
  const key = `${origin}\n${token ?? ''}`;
  let queue = queues.get(key);
  if (!queue) {
    queue = createUploadQueue({ api: { origin, token }, onEvent: (event) => worker.postMessage(event) });
    queues.set(key, queue);
  }
  return queue;
}

worker.addEventListener('message', (event) => {
  const request = event.data;
  if (request.type === 'cancel') return owners.get(request.id)?.cancel(request.id);
  const queue = queueFor(request.api.origin, request.api.token);
  owners.set(request.id, queue);
  void queue.add(request.id, { project: request.project, draft: rebuildDraft(request.draft), resume: request.resume }).finally(() => owners.delete(request.id));
});

// The page counts the worker as running only after this: a script that failed to load never says it.
worker.postMessage({ type: 'ready' });
