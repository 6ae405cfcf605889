/** Runs `task` over `items` with at most `limit` in flight (storage calls); the first failure stops the loop and is thrown. */
export async function eachLimited<T>(items: Iterable<T> | AsyncIterable<T>, limit: number, task: (item: T) => Promise<void>): Promise<void> {
  const running = new Set<Promise<void>>();
  // A failed task must stop the loop: remember it, and rethrow at the next step.
  let failure: { error: unknown } | undefined;
  for await (const item of items) {
    if (failure) break;
    const promise: Promise<void> = task(item)
      .catch((error: unknown) => {
        failure ??= { error };
      })
      .finally(() => running.delete(promise));
    running.add(promise);
    if (running.size >= limit) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure) throw failure.error;
}
