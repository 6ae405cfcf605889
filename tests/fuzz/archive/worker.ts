/// <reference lib="webworker" />
import { buildCorpus } from './corpus.ts';
import { executeInput } from './execute.ts';
import { makeInput } from './mutate.ts';
import type { WorkerFinding, WorkerJob, WorkerMessage, WorkerTally } from './protocol.ts';

declare const self: DedicatedWorkerGlobalScope;

const TALLY_EVERY = 256;
const RSS_EVERY = 64;

function post(message: WorkerMessage, transfer: Transferable[] = []): void {
  self.postMessage(message, transfer);
}

async function run(job: WorkerJob): Promise<void> {
  const corpus = await buildCorpus(job.corpusSeed);
  const heartbeat = new Int32Array(job.heartbeat);
  const tally: WorkerTally = { done: 0, lastNumber: job.start - job.step, outcomes: {}, slowestMs: 0, slowestNumber: -1 };
  for (let number = job.start; number < job.count; number += job.step) {
    if (Date.now() > job.deadline) break;
    Atomics.store(heartbeat, job.slot * 2, number);
    Atomics.add(heartbeat, job.slot * 2 + 1, 1);
    if (number === job.inject?.hangAt) for (;;);
    if (number === job.inject?.throwAt) setTimeout(() => {
      throw new TypeError('injected error outside the read');
    }, 0);
    const input = makeInput(corpus, job.runSeed, number);
    const started = performance.now();
    const outcome = await executeInput(input, job.runSeed);
    const elapsed = performance.now() - started;
    if (elapsed > tally.slowestMs) {
      tally.slowestMs = elapsed;
      tally.slowestNumber = number;
    }
    const key = outcome.kind === 'error' ? outcome.code : outcome.kind;
    tally.outcomes[key] = (tally.outcomes[key] ?? 0) + 1;
    tally.done++;
    tally.lastNumber = number;
    if (outcome.kind !== 'ok' && outcome.kind !== 'error') {
      const finding: WorkerFinding = { kind: outcome.kind, number, message: outcome.message, recipe: input.recipe.join(' | '), bytes: input.bytes };
      post({ type: 'finding', finding });
    }
    if (tally.done % RSS_EVERY === 0) {
      const rss = process.memoryUsage.rss();
      if (rss > job.rssLimitBytes) {
        const finding: WorkerFinding = {
          kind: 'memory',
          number,
          message: `resident memory ${(rss / 2 ** 20).toFixed(0)} MiB above the ${(job.rssLimitBytes / 2 ** 20).toFixed(0)} MiB limit, within the last ${RSS_EVERY} inputs`,
          recipe: input.recipe.join(' | '),
          bytes: input.bytes,
        };
        post({ type: 'finding', finding });
        Bun.gc(true);
      }
    }
    if (tally.done % TALLY_EVERY === 0) post({ type: 'tally', tally });
  }
  post({ type: 'done', tally });
}

self.onmessage = (event: MessageEvent<WorkerJob>) => {
  run(event.data).catch((error: unknown) => {
    post({ type: 'crashed', message: error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error) });
  });
};
