import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCorpus, type Seed } from './corpus.ts';
import { makeInput } from './mutate.ts';
import type { FindingKind, WorkerFinding, WorkerJob, WorkerMessage, WorkerTally } from './protocol.ts';

export type FuzzOptions = {
  count: number;
  seed: number;
  /** Stop starting new inputs after this many seconds (the count is then an upper bound). */
  seconds?: number;
  workers?: number;
  /** An input that keeps a worker busy longer than this is a hang. */
  timeoutMs?: number;
  /** Resident memory of a worker above this is a finding. */
  rssLimitMiB?: number;
  /** Where reproducers go (base64 of the input). */
  reproDir?: string;
  /** Accepted non-canonical inputs are notes, not failures (default: failures). */
  lenient?: boolean;
  /** Harness self-test only: make a worker hang on, or throw outside the read after, one input. */
  inject?: { hangAt?: number; throwAt?: number };
  onFinding?: (finding: Finding) => void;
  onProgress?: (done: number) => void;
};

export type Finding = WorkerFinding & { fatal: boolean; reproducerPath: string };

export type FuzzSummary = {
  inputs: number;
  seconds: number;
  outcomes: Record<string, number>;
  findings: Finding[];
  counts: Record<FindingKind, number>;
  slowestMs: number;
  slowestNumber: number;
};

const emptyTally = (): WorkerTally => ({ done: 0, lastNumber: -1, outcomes: {}, slowestMs: 0, slowestNumber: -1 });

function addTally(into: WorkerTally, from: WorkerTally): void {
  into.done += from.done;
  for (const [key, value] of Object.entries(from.outcomes)) into.outcomes[key] = (into.outcomes[key] ?? 0) + value;
  if (from.slowestMs > into.slowestMs) {
    into.slowestMs = from.slowestMs;
    into.slowestNumber = from.slowestNumber;
  }
}

type Slot = {
  worker: Worker;
  current: WorkerTally;
  committed: WorkerTally;
  lastBeat: number;
  lastBeatAt: number;
  /** False until the first input starts: building the corpus on a busy machine can take a while. */
  started: boolean;
  running: boolean;
};

const STARTUP_GRACE_MS = 60_000;

/**
 * Runs the mutation fuzzer on worker threads. A watchdog on the main thread sees each worker's current
 * input number and heartbeat in shared memory, so a reader stuck in a synchronous loop or awaiting a
 * promise that never settles is caught: the worker is terminated, the input regenerated here from
 * (seed, number) and reported, and a fresh worker continues after it.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzSummary> {
  const workers = Math.max(1, options.workers ?? Math.min(2, navigator.hardwareConcurrency || 1));
  const timeoutMs = options.timeoutMs ?? 10_000;
  const rssLimitBytes = (options.rssLimitMiB ?? 2048) * 2 ** 20;
  const reproDir = options.reproDir ?? '/tmp/archive-fuzz';
  const started = Date.now();
  const deadline = options.seconds === undefined ? Number.MAX_SAFE_INTEGER : started + options.seconds * 1000;
  const heartbeat = new SharedArrayBuffer(8 * workers);
  const beats = new Int32Array(heartbeat);
  const findings: Finding[] = [];
  const counts: Record<FindingKind, number> = { crash: 0, uncatalogued: 0, wrong_result: 0, hang: 0, memory: 0, noncanonical: 0, worker_crash: 0 };
  let corpus: Seed[] | undefined;

  const record = (finding: WorkerFinding): void => {
    counts[finding.kind]++;
    const fatal = finding.kind !== 'noncanonical' || options.lenient !== true;
    mkdirSync(reproDir, { recursive: true });
    const reproducerPath = join(reproDir, `${finding.kind}-seed${options.seed}-n${finding.number}.b64`);
    // Keep the first few of a kind: a systematic bug would otherwise write thousands of files.
    if (counts[finding.kind] <= 20) writeFileSync(reproducerPath, Buffer.from(finding.bytes).toString('base64') + '\n');
    const full: Finding = { ...finding, fatal, reproducerPath };
    findings.push(full);
    options.onFinding?.(full);
  };

  return new Promise<FuzzSummary>((resolve) => {
    const slots: Slot[] = [];
    let progressTimer: ReturnType<typeof setInterval> | undefined;

    const total = (): WorkerTally => {
      const sum = emptyTally();
      for (const slot of slots) {
        addTally(sum, slot.committed);
        addTally(sum, slot.current);
      }
      return sum;
    };

    const finishIfDone = (): void => {
      if (slots.some((slot) => slot.running)) return;
      clearInterval(watchdog);
      if (progressTimer !== undefined) clearInterval(progressTimer);
      const sum = total();
      resolve({
        inputs: sum.done,
        seconds: (Date.now() - started) / 1000,
        outcomes: sum.outcomes,
        findings,
        counts,
        slowestMs: sum.slowestMs,
        slowestNumber: sum.slowestNumber,
      });
    };

    const launch = (index: number, start: number, committed: WorkerTally): void => {
      const worker = new Worker(new URL('./worker.ts', import.meta.url).href);
      const slot: Slot = { worker, current: emptyTally(), committed, lastBeat: Atomics.load(beats, index * 2 + 1), lastBeatAt: Date.now(), started: false, running: true };
      slots[index] = slot;
      worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
        const message = event.data;
        switch (message.type) {
          case 'finding':
            record(message.finding);
            return;
          case 'tally':
            slot.current = message.tally;
            return;
          case 'done':
            slot.current = message.tally;
            slot.running = false;
            worker.terminate();
            finishIfDone();
            return;
          case 'crashed':
            record({ kind: 'worker_crash', number: Atomics.load(beats, index * 2), message: message.message, recipe: '', bytes: new Uint8Array(0) });
            slot.running = false;
            worker.terminate();
            finishIfDone();
            return;
        }
      };
      worker.onerror = (event: ErrorEvent) => {
        // An error escaping the reader asynchronously (an unhandled rejection, a throw in a callback).
        const number = Atomics.load(beats, index * 2);
        replace(index, number, 'crash', `error outside the awaited read: ${event.message}`);
      };
      const job: WorkerJob = {
        runSeed: options.seed,
        corpusSeed: 1,
        start,
        step: workers,
        count: options.count,
        deadline,
        heartbeat,
        slot: index,
        rssLimitBytes,
        ...(options.inject === undefined ? {} : { inject: options.inject }),
      };
      worker.postMessage(job);
    };

    /** Ends a worker stuck on (or killed by) input `number` and continues with the next one. */
    const replace = (index: number, number: number, kind: FindingKind, message: string): void => {
      const slot = slots[index];
      if (slot === undefined || !slot.running) return;
      slot.running = false;
      slot.worker.terminate();
      void (async () => {
        corpus ??= await buildCorpus(1);
        const input = makeInput(corpus, options.seed, number);
        record({ kind, number, message, recipe: input.recipe.join(' | '), bytes: input.bytes });
        const committed = emptyTally();
        addTally(committed, slot.committed);
        addTally(committed, slot.current);
        // Inputs between the last tally and this one completed without findings (those are sent at once).
        const unreported = Math.max(0, Math.floor((number - slot.current.lastNumber) / workers) - 1);
        if (slot.current.lastNumber < 0) committed.done += Math.max(0, Math.floor((number - index) / workers));
        else committed.done += unreported;
        committed.done += 1;
        committed.outcomes[kind] = (committed.outcomes[kind] ?? 0) + 1;
        const next = number + workers;
        if (next < options.count && Date.now() < deadline) launch(index, next, committed);
        else {
          slots[index] = { ...slot, committed, current: emptyTally(), running: false };
          finishIfDone();
        }
      })();
    };

    const watchdog = setInterval(() => {
      const now = Date.now();
      slots.forEach((slot, index) => {
        if (!slot.running) return;
        const beat = Atomics.load(beats, index * 2 + 1);
        if (beat !== slot.lastBeat) {
          slot.lastBeat = beat;
          slot.lastBeatAt = now;
          slot.started = true;
        } else if (now - slot.lastBeatAt > (slot.started ? timeoutMs : STARTUP_GRACE_MS)) {
          replace(index, Atomics.load(beats, index * 2), 'hang', `no progress for ${timeoutMs} ms`);
        }
      });
    }, 100);

    if (options.onProgress !== undefined) progressTimer = setInterval(() => options.onProgress?.(total().done), 10_000);
    for (let index = 0; index < workers; index++) launch(index, index, emptyTally());
  });
}

/** The one-line verdict the CLI and the report print. */
export function summarise(summary: FuzzSummary): string {
  const c = summary.counts;
  const rate = summary.inputs / Math.max(summary.seconds, 1e-9);
  return (
    `${summary.inputs} inputs, ${c.crash + c.worker_crash} crashes, ${c.hang} hangs, ${c.uncatalogued} uncatalogued, ` +
    `${c.wrong_result} wrong results, ${c.memory} memory; ${rate.toFixed(0)} inputs/s over ${summary.seconds.toFixed(1)} s` +
    `, ${c.noncanonical} non-canonical accepted`
  );
}

export function fatalFindings(summary: FuzzSummary): Finding[] {
  return summary.findings.filter((finding) => finding.fatal);
}
