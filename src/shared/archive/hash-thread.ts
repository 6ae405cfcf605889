// Node/Bun only (node:worker_threads, node:crypto): kept out of the core index so browser bundles never see it.
import { createHash } from 'node:crypto';
import { closeSync, constants, fchmodSync, openSync, writeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { MAX_CHUNK_SIZE } from './constants.ts';
import type { ChunkBatchHasher } from './reader.ts';

/**
 * The thread's whole program, as text: a worker started from a string needs no file next to this one,
 * so it also runs from a bundle (dist/cloudhost.js, the compiled binary). CommonJS (eval workers are).
 * It hashes the views the caller copied back to back into one of the shared slots; given `places`, it
 * then writes views into files (creating those that carry a mode), up to the first view whose digest
 * is not the expected one: nothing unverified is written.
 */
const WORKER_SOURCE = `'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { closeSync, constants, fchmodSync, fstatSync, openSync, writeSync } = require('node:fs');
const slots = workerData.slots.map((buffer) => new Uint8Array(buffer));
const busy = new Int32Array(workerData.busy);
const exactModes = new Map();
// Bun's SHA256.hash writes the digest into place (no objects per chunk); node:crypto elsewhere.
const sha256Into = typeof Bun !== 'undefined' && Bun.SHA256 !== undefined
  ? (view, digests, at) => { Bun.SHA256.hash(view, digests.subarray(at, at + 32)); }
  : (view, digests, at) => { digests.set(createHash('sha256').update(view).digest(), at); };
function matches(digests, expected, view) {
  for (let i = 32 * view; i < 32 * view + 32; i++) if (digests[i] !== expected[i]) return false;
  return true;
}
function openFor(place) {
  // An existing file: never through a link put in its place meanwhile (O_NOFOLLOW where there is one).
  if (place.mode === undefined) return openSync(place.path, constants.O_WRONLY | (constants.O_NOFOLLOW || 0));
  const fd = openSync(place.path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, place.mode);
  try {
    let exact = exactModes.get(place.mode);
    if (exact === undefined) {
      exact = (fstatSync(fd).mode & 0o7777) === place.mode;
      exactModes.set(place.mode, exact);
    }
    if (!exact) fchmodSync(fd, place.mode);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}
function writeAll(fd, bytes, start, length, position) {
  let done = 0;
  while (done < length) {
    const written = writeSync(fd, bytes, start + done, length - done, position + done);
    if (written <= 0) throw new Error('short write at offset ' + (position + done));
    done += written;
  }
}
parentPort.on('message', ({ slot, lengths, expected, places }) => {
  const bytes = slots[slot];
  const starts = new Array(lengths.length);
  const digests = new Uint8Array(32 * lengths.length);
  let offset = 0;
  for (let i = 0; i < lengths.length; i++) {
    starts[i] = offset;
    sha256Into(bytes.subarray(offset, offset + lengths[i]), digests, 32 * i);
    offset += lengths[i];
  }
  let error;
  if (places !== undefined) {
    const open = new Map();
    let verified = 0;
    // One write per run: consecutive views of one file at consecutive offsets lie back to back here.
    let run;
    let at;
    const flush = () => {
      if (run === undefined) return;
      at = run.path;
      writeAll(run.fd, bytes, run.start, run.length, run.position);
      run = undefined;
    };
    try {
      for (const place of places) {
        while (verified <= place.view && matches(digests, expected, verified)) verified++;
        if (verified <= place.view) break;
        at = place.path;
        let fd = open.get(place.path);
        if (fd === undefined) {
          fd = openFor(place);
          open.set(place.path, fd);
        }
        const start = starts[place.view], length = lengths[place.view];
        if (run !== undefined && run.fd === fd && run.position + run.length === place.offset && run.start + run.length === start) {
          run.length += length;
        } else {
          flush();
          run = { fd, path: place.path, start, length, position: place.offset };
        }
      }
      flush();
    } catch (caught) {
      error = { message: String((caught && caught.message) || caught), code: caught && caught.code, path: at };
    }
    for (const fd of open.values()) {
      try {
        closeSync(fd);
      } catch (caught) {
        error = error || { message: String((caught && caught.message) || caught), code: caught && caught.code, path: at };
      }
    }
  }
  Atomics.sub(busy, 0, 1);
  parentPort.postMessage({ slot, digests, error }, [digests.buffer]);
});
`;

export type HashThreadOptions = {
  /** Batches that can be in flight at once (default 4). */
  slots?: number;
  /** Bytes per batch (default 1 MiB + one largest chunk). */
  slotBytes?: number;
};

/**
 * Where the thread writes view `view` of a batch: at `offset` of the file at `path`. With `mode` the
 * file is created there first (O_CREAT | O_EXCL: an existing name, a planted link included, fails;
 * exactly that mode); without, it must exist (it is opened for writing, by path and not through a
 * symlink, once per batch).
 */
export type ThreadPlace = { view: number; path: string; offset: number; mode?: number };

/** A place the thread failed to create or write (the rest of that batch's places were not attempted). */
export type ThreadPlaceError = { message: string; code?: string; path: string };

export type HashThread = ChunkBatchHasher & {
  /** Batches handed to the thread and not finished: read from shared memory, so current even while the caller is busy. */
  busy(): number;
  /**
   * hashBatch, then: in view order, each view is written at its `places`, as long as every view up to
   * it hashed to its `expected` digest (32 bytes per view); at the first other digest it stops. `places`
   * must be in view order; a file with a `mode` must be new and come before its other places. A failure
   * to create or write is returned as `error` (the digests are still good); places after it are not
   * attempted.
   */
  hashAndPlace(views: readonly Uint8Array[], expected: Uint8Array, places: readonly ThreadPlace[]): Promise<{ digests: Uint8Array; error?: ThreadPlaceError }>;
  /** False once the thread failed or was closed (a new one is then needed to use a thread again). */
  usable(): boolean;
  /** Stops the thread (pending batches reject; a file being written when it stops may be left short). Safe to call twice. */
  close(): Promise<void>;
};

function hashHere(views: readonly Uint8Array[]): Uint8Array {
  const digests = new Uint8Array(32 * views.length);
  views.forEach((view, i) => digests.set(createHash('sha256').update(view).digest(), 32 * i));
  return digests;
}

/** hashAndPlace without a thread: the same rules, on the calling thread. */
function placeHere(views: readonly Uint8Array[], digests: Uint8Array, expected: Uint8Array, places: readonly ThreadPlace[]): ThreadPlaceError | undefined {
  let verified = 0;
  const matches = (view: number): boolean => {
    for (let i = 32 * view; i < 32 * view + 32; i++) if (digests[i] !== expected[i]) return false;
    return true;
  };
  const open = new Map<string, number>();
  let failure: ThreadPlaceError | undefined;
  for (const place of places) {
    while (verified <= place.view && matches(verified)) verified++;
    if (verified <= place.view) break;
    try {
      let fd = open.get(place.path);
      if (fd === undefined) {
        fd =
          place.mode === undefined
            ? openSync(place.path, constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0))
            : openSync(place.path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, place.mode);
        open.set(place.path, fd);
        if (place.mode !== undefined) fchmodSync(fd, place.mode);
      }
      const bytes = views[place.view]!;
      let done = 0;
      while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, place.offset + done);
    } catch (caught) {
      const error = caught as NodeJS.ErrnoException;
      failure = { message: String(error?.message ?? caught), ...(error?.code === undefined ? {} : { code: error.code }), path: place.path };
      break;
    }
  }
  for (const [path, fd] of open) {
    try {
      closeSync(fd);
    } catch (caught) {
      failure ??= { message: String((caught as Error)?.message ?? caught), path };
    }
  }
  return failure;
}

type Answer = { digests: Uint8Array; error?: ThreadPlaceError };
type Pending = { resolve: (answer: Answer) => void; reject: (error: unknown) => void };

/**
 * SHA-256 of chunk batches on one worker thread, started on the first batch (a small archive never
 * starts it). Each batch's views are copied into a free slot of SharedArrayBuffer memory (a memcpy: the
 * caller's buffers are never moved, kept or changed, so a stream's pieces may be shared with anyone),
 * the thread hashes the slot and answers with the digests. If no thread can be started, the same work is
 * done on the calling thread. The thread keeps the process alive only while a batch is pending.
 */
export function startHashThread(options: HashThreadOptions = {}): HashThread {
  const slotCount = Math.max(1, options.slots ?? 4);
  const slotBytes = Math.max(MAX_CHUNK_SIZE, options.slotBytes ?? 1024 * 1024 + MAX_CHUNK_SIZE);
  let worker: Worker | undefined;
  let slots: Uint8Array[] = [];
  let busy: Int32Array | undefined;
  let started = false;
  let failure: Error | undefined;
  const free: number[] = [];
  const pending = new Map<number, Pending>();
  const slotWaiters: (() => void)[] = [];

  const fail = (error: Error): void => {
    failure ??= error;
    for (const job of pending.values()) job.reject(failure);
    pending.clear();
    for (const wake of slotWaiters.splice(0)) wake();
  };

  const start = (): void => {
    started = true;
    try {
      const buffers = Array.from({ length: slotCount }, () => new SharedArrayBuffer(slotBytes));
      const busyBuffer = new SharedArrayBuffer(4);
      worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { slots: buffers, busy: busyBuffer } });
      slots = buffers.map((buffer) => new Uint8Array(buffer));
      busy = new Int32Array(busyBuffer);
      for (let slot = slotCount - 1; slot >= 0; slot--) free.push(slot);
      worker.unref();
      worker.on('message', ({ slot, digests, error }: { slot: number } & Answer) => {
        const job = pending.get(slot);
        pending.delete(slot);
        free.push(slot);
        if (pending.size === 0) worker?.unref();
        slotWaiters.shift()?.();
        job?.resolve(error === undefined ? { digests } : { digests, error });
      });
      worker.on('error', (error) => fail(error instanceof Error ? error : new Error(String(error))));
      worker.on('exit', (code) => fail(new Error(`the hashing thread exited (${code})`)));
    } catch {
      worker = undefined; // no threads here: hash on the calling thread
    }
  };

  /** Copies the views into a free slot and hands it to the thread; undefined when it must be done here. */
  const send = async (views: readonly Uint8Array[], extra: { expected?: Uint8Array; places?: readonly ThreadPlace[] }): Promise<Answer | undefined> => {
    if (!started) start();
    let total = 0;
    for (const view of views) total += view.length;
    if (worker === undefined || total > slotBytes) return undefined;
    for (;;) {
      if (failure !== undefined) throw failure;
      if (free.length > 0) break;
      await new Promise<void>((resolve) => slotWaiters.push(resolve));
    }
    const slot = free.pop()!;
    const target = slots[slot]!;
    const lengths = new Uint32Array(views.length);
    let offset = 0;
    for (let i = 0; i < views.length; i++) {
      const view = views[i]!;
      target.set(view, offset);
      lengths[i] = view.length;
      offset += view.length;
    }
    const running = worker;
    Atomics.add(busy!, 0, 1);
    return new Promise<Answer>((resolve, reject) => {
      pending.set(slot, { resolve, reject });
      if (pending.size === 1) running.ref();
      running.postMessage({ slot, lengths, ...extra }, [lengths.buffer]);
    });
  };

  return {
    maxBatchBytes: slotBytes,
    busy: () => (busy === undefined ? 0 : Atomics.load(busy, 0)),
    usable: () => failure === undefined,
    async hashBatch(views) {
      return (await send(views, {}))?.digests ?? hashHere(views);
    },
    async hashAndPlace(views, expected, places) {
      const answer = await send(views, { expected, places });
      if (answer !== undefined) return answer;
      // No thread (or a batch too large for a slot): the same work here.
      const digests = hashHere(views);
      const error = placeHere(views, digests, expected, places);
      return error === undefined ? { digests } : { digests, error };
    },
    async close() {
      const running = worker;
      worker = undefined;
      started = true;
      fail(new Error('the hashing thread was closed'));
      if (running !== undefined) {
        running.removeAllListeners('exit');
        await running.terminate();
      }
    },
  };
}

let shared: HashThread | undefined;

/**
 * One hashing thread for the whole process, started on first use and kept (idle, it does not keep the
 * process alive): extractions after the first skip starting a thread and compiling its code again.
 * Several extractions at once share its slots. Never close it; a caller that stops early waits for its
 * own pending batches instead. If it fails (the thread died), the next caller gets a new one.
 */
export function sharedHashThread(): HashThread {
  if (shared === undefined || !shared.usable()) shared = startHashThread();
  return shared;
}
