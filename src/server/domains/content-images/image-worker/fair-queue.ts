/**
 * The order image work runs in: at most `concurrency` tasks at once in all and one per owner (a user,
 * or the optimise job), owners served in turn (the one served longest ago, or never while it waited,
 * first), so one user's batch
 * of large images cannot hold up another user's image by more than the image being worked on.
 * Background owners (the optimise job) run only when no interactive owner waits.
 * A task whose key is already queued or running is not queued twice: the caller gets the same result
 * (a finalize asked again while its image waits joins it).
 */
export type FairTask<T> = { key: string; owner: string; background?: boolean; work: () => Promise<T> };

type Queued = { owner: string; background: boolean; start: () => void };

export class FairQueue {
  /** Waiting tasks per owner; a Map keeps insertion order, so its first owner is the next one's turn. */
  private readonly interactive = new Map<string, Queued[]>();
  private readonly background = new Map<string, Queued[]>();
  private readonly runningOwners = new Set<string>();
  private readonly byKey = new Map<string, Promise<unknown>>();
  /** When each owner was last served (a count of dispatches); forgotten once it has nothing waiting or running. */
  private readonly lastServed = new Map<string, number>();
  private dispatches = 0;
  private running = 0;

  constructor(private readonly concurrency: number) {}

  run<T>(task: FairTask<T>): Promise<T> {
    const existing = this.byKey.get(task.key);
    if (existing) return existing as Promise<T>;
    const result = new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running++;
        this.runningOwners.add(task.owner);
        task
          .work()
          .then(resolve, reject)
          .finally(() => {
            this.running--;
            this.runningOwners.delete(task.owner);
            this.byKey.delete(task.key);
            if (!this.interactive.has(task.owner) && !this.background.has(task.owner)) this.lastServed.delete(task.owner);
            this.pump();
          });
      };
      const lane = task.background ? this.background : this.interactive;
      const waiting = lane.get(task.owner) ?? [];
      waiting.push({ owner: task.owner, background: task.background ?? false, start });
      lane.set(task.owner, waiting);
    });
    this.byKey.set(task.key, result);
    this.pump();
    return result;
  }

  /** Tasks waiting or running (for the finalize reply saying how busy the server is). */
  get size(): number {
    return this.byKey.size;
  }

  private pump(): void {
    while (this.running < this.concurrency) {
      const next = this.take(this.interactive) ?? this.take(this.background);
      if (!next) return;
      next.start();
    }
  }

  /** The next task of the owner served longest ago (of those with nothing running). */
  private take(lane: Map<string, Queued[]>): Queued | undefined {
    let chosen: string | undefined;
    for (const owner of lane.keys()) {
      if (this.runningOwners.has(owner)) continue;
      if (chosen === undefined || (this.lastServed.get(owner) ?? 0) < (this.lastServed.get(chosen) ?? 0)) chosen = owner;
    }
    if (chosen === undefined) return undefined;
    const waiting = lane.get(chosen)!;
    const next = waiting.shift()!;
    this.lastServed.set(chosen, ++this.dispatches);
    if (waiting.length === 0) lane.delete(chosen);
    return next;
  }
}
