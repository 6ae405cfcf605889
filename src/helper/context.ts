import type { Engine } from './engine.ts';
import type { Fetcher } from './install/types.ts';
import type { ProcessTracker } from './runtime/processes.ts';
import type { TransitionRegistry } from './runtime/transitions.ts';
import type { StateStore } from './state/store.ts';

/** What every method gets: the state file, the engine, and what runs in this process. */
export type HelperContext = {
  store: StateStore;
  engine: () => Promise<Engine>;
  transitions: TransitionRegistry;
  processes: ProcessTracker;
  platform: NodeJS.Platform;
  /** The fetch the engine downloads with (tests and proxies may replace it). */
  fetch?: Fetcher;
  log(line: string): void;
};
