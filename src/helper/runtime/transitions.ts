import type { TransitionProgress } from '../../shared/schemas/local-helper.ts';

/** delete: a workdir's files are being removed (it blocks transitions but is not shown as one). */
export type TransitionKind = 'transition' | 'repair' | 'delete';

type Running = {
  kind: TransitionKind;
  controller: AbortController;
  done: number;
  total: number;
  finished: Promise<void>;
};

/**
 * The transitions (install, update, repair) running in this process: at most one per workdir. A
 * workdir is reserved synchronously (inside the state update that checks it is free), then its work
 * starts; progress is kept here for transition_status.
 */
export class TransitionRegistry {
  private readonly running = new Map<string, Running>();

  isRunning(workdirId: string): boolean {
    return this.running.has(workdirId);
  }

  kindOf(workdirId: string): TransitionKind | undefined {
    return this.running.get(workdirId)?.kind;
  }

  /** Claims the workdir; false when a transition already runs there. */
  reserve(workdirId: string, kind: TransitionKind, total: number): boolean {
    if (this.running.has(workdirId)) return false;
    this.running.set(workdirId, { kind, controller: new AbortController(), done: 0, total, finished: Promise.resolve() });
    return true;
  }

  /** Drops a reservation whose work never started. */
  release(workdirId: string): void {
    this.running.delete(workdirId);
  }

  /** Runs the reserved workdir's work in the background; the entry goes when `work` settles. */
  start(workdirId: string, work: (signal: AbortSignal, onProgress: (progress: { done: number; total: number }) => void) => Promise<void>): void {
    const entry = this.running.get(workdirId);
    if (!entry) throw new Error(`workdir ${workdirId} was not reserved`);
    entry.finished = (async () => {
      try {
        await work(entry.controller.signal, (progress) => {
          entry.done = progress.done;
          entry.total = progress.total;
        });
      } finally {
        this.running.delete(workdirId);
      }
    })();
  }

  /** Asks the workdir's transition to stop; resolves once it has. */
  async cancel(workdirId: string): Promise<boolean> {
    const entry = this.running.get(workdirId);
    if (!entry) return false;
    entry.controller.abort(new DOMException('Cancelled', 'AbortError'));
    await entry.finished.catch(() => undefined);
    return true;
  }

  /** Stops every transition (shutdown) and waits for them, at most `timeoutMs`. */
  async cancelAll(timeoutMs: number): Promise<void> {
    const all = [...this.running.keys()].map((id) => this.cancel(id));
    await Promise.race([Promise.all(all), Bun.sleep(timeoutMs)]);
  }

  status(workdirId?: string): TransitionProgress | null {
    if (workdirId !== undefined) {
      const entry = this.running.get(workdirId);
      return entry && entry.kind !== 'delete' ? { workdir: workdirId, done: entry.done, total: entry.total } : null;
    }
    for (const [id, entry] of this.running) if (entry.kind !== 'delete') return { workdir: id, done: entry.done, total: entry.total };
    return null;
  }
}
