/**
 * How a held call (the agent's provide long poll, the player's init) waits without holding a database
 * connection: on a timer, the caller's signal (the client went away, the server stops) or a wake-up from
 * a notification, whichever comes first. onWake receives the function that ends the wait.
 */
export function sleepUntilWoken(ms: number, signal: AbortSignal | undefined, onWake: (resolve: () => void) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (signal?.aborted) return done();
    signal?.addEventListener('abort', done, { once: true });
    onWake(done);
  });
}
