/**
 * The order image work runs in: at most `concurrency` tasks at once in all and one per owner (a user,
 * or the optimise job), owners served in turn (the one served longest ago first), so one user's batch
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

  /** The first owner's (longest unserved) next task, the owner moved to the end of the turn. */
  private take(lane: Map<string, Queued[]>): Queued | undefined {
    for (const [owner, waiting] of lane) {
      if (this.runningOwners.has(owner)) continue;
      const next = waiting.shift()!;
      lane.delete(owner);
      if (waiting.length > 0) lane.set(owner, waiting);
      return next;
    }
    return undefined;
  }
}
