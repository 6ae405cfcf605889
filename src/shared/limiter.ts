/**
 * The one concurrency limiter: the upload session's parts, hashing and packaging (spec §9 upload
 * concurrency), the client's image uploads, the server's storage calls (finding stored chunks, backup
 * and restore copying blobs) all run through it.
 */

/** At most `limit` tasks at once; the others wait in order. `free()` resolves once a task would start at once. */
export type Limiter = { run<T>(task: () => Promise<T>): Promise<T>; free(): Promise<void> };

export function createLimiter(limit: number): Limiter {
  let active = 0;
  const waiting: (() => void)[] = [];
  const waitingForRoom: (() => void)[] = [];
  const release = () => {
    active -= 1;
    const next = waiting.shift();
    if (next) next();
    else for (const resolve of waitingForRoom.splice(0)) resolve();
  };
  return {
    async run(task) {
      if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      active += 1;
      try {
        return await task();
      } finally {
        release();
      }
    },
    free() {
      if (active < limit && waiting.length === 0) return Promise.resolve();
      return new Promise<void>((resolve) => waitingForRoom.push(resolve));
    },
  };
}

/**
 * Runs `task` over `items` with at most `limit` in flight, taking the next item only when one may start
 * (so a long listing is never read ahead); the first failure stops the loop and is thrown once the
 * tasks in flight are over.
 */
export async function eachLimited<T>(items: Iterable<T> | AsyncIterable<T>, limit: number, task: (item: T) => Promise<void>): Promise<void> {
  const limiter = createLimiter(limit);
  const running = new Set<Promise<void>>();
  // A failed task must stop the loop: remember it (before its slot is free), and rethrow at the end.
  let failure: { error: unknown } | undefined;
  const attempt = async (item: T) => {
    try {
      await task(item);
    } catch (error) {
      failure ??= { error };
    }
  };
  for await (const item of items) {
    if (failure) break;
    const promise: Promise<void> = limiter.run(() => attempt(item)).finally(() => running.delete(promise));
    running.add(promise);
    await limiter.free();
  }
  await Promise.all(running);
  if (failure) throw failure.error;
}
