import type { InstalledPackage, RepairOptions, RepairResult, TransitionOptions, TransitionResult } from './install/types.ts';

/** What the methods use of the install engine (src/helper/install/engine.ts; contract in install/types.ts). */
export type Engine = {
  transitionWorkdir(options: TransitionOptions): Promise<TransitionResult>;
  repairWorkdir(options: RepairOptions): Promise<RepairResult>;
  recoverWorkdir(options: { dir: string; metaDir: string }): Promise<InstalledPackage | undefined>;
  readInstalled(metaDir: string): Promise<InstalledPackage | undefined>;
  removeWorkdirFiles(options: { dir: string; metaDir: string }): Promise<void>;
};

let loaded: Promise<Engine> | undefined;

/** The engine, loaded on first use (the serve command is the only one that needs it). */
export function loadEngine(): Promise<Engine> {
  loaded ??= import('./install/engine.ts').then((module) => module as Engine);
  return loaded;
}
