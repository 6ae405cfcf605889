/** Messages between the fuzz runner and its workers. */
export type WorkerJob = {
  runSeed: number;
  corpusSeed: number;
  /** This worker takes inputs start, start + step, ... below count. */
  start: number;
  step: number;
  count: number;
  /** Epoch milliseconds after which no new input starts. */
  deadline: number;
  /** Int32Array pairs per slot: current input number, heartbeat counter. */
  heartbeat: SharedArrayBuffer;
  slot: number;
  rssLimitBytes: number;
  /** Self-test of the harness: spin forever on this input, or throw outside the read on that one. */
  inject?: { hangAt?: number; throwAt?: number };
};

export type FindingKind = 'crash' | 'uncatalogued' | 'wrong_result' | 'hang' | 'memory' | 'noncanonical' | 'worker_crash';

export type WorkerFinding = { kind: FindingKind; number: number; message: string; recipe: string; bytes: Uint8Array };

export type WorkerTally = {
  done: number;
  lastNumber: number;
  /** Outcome counts: 'ok', an ArchiveError code, 'uncatalogued', 'noncanonical'. */
  outcomes: Record<string, number>;
  slowestMs: number;
  slowestNumber: number;
};

export type WorkerMessage =
  | { type: 'finding'; finding: WorkerFinding }
  | { type: 'tally'; tally: WorkerTally }
  | { type: 'done'; tally: WorkerTally }
  | { type: 'crashed'; message: string };
