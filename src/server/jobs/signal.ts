/**
 * In-process wake-up for job workers: a service that committed a job calls notify() so this process's
 * idle workers claim it now instead of at their next poll. It is an optimisation only: correctness never
 * depends on it (other processes find the job by polling).
 * SEAM (packages issue): notify() also sends a Postgres NOTIFY so workers of every process wake up,
 * next to the job_updated events it publishes.
 */
export type JobSignal = {
  notify(): void;
  /** Returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
};

export function createJobSignal(): JobSignal {
  const listeners = new Set<() => void>();
  return {
    notify() {
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
