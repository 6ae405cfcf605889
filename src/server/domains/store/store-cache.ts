import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../../db/client.ts';
import { subscribeChannel } from '../../db/notify.ts';

/**
 * Store pages are read far more often than they change, so each process keeps the pages it built,
 * and drops them when the database says something they show changed. Correct with N processes: every
 * write to what a store page shows fires a trigger (migrations 0004_store_notify, and
 * 0005_store_packages_notify for package titles and tags) that NOTIFYs 'store_changed' with the
 * project id ('*' for owner names and credentials) at commit, and every
 * process LISTENs. Safety nets: nothing is cached until the LISTEN is in place, everything is dropped
 * when it had to be re-established (notifications may have been missed), and entries expire after
 * maxAgeMs anyway.
 *
 * A page read from the database while a change commits must not be cached after that change's
 * notification was handled: each entry is stored only if no invalidation happened since its read began.
 *
 * Read-your-writes: a change's notification travels on another connection than its commit, so it can
 * arrive just after the writer got its answer. syncStoreCache (run after every write request of this
 * process) sends a marker NOTIFY and waits for it: PostgreSQL delivers notifications in commit order,
 * so once the marker is back every earlier change has been applied to the cache.
 */
export const storeChangedChannel = 'store_changed';

type Entry<T> = { value: T; json: string; storedAt: number };

export type StoreCache<T> = {
  /** The cached page (and its JSON), or a fresh one from load (cached when still valid). */
  get(projectId: string, load: () => Promise<T>): Promise<{ value: T; json: string }>;
};

const syncPrefix = 'sync:';
const syncTimeoutMs = 2000;

type CacheState<T> = {
  entries: Map<string, Entry<T>>;
  /** Marker notifications this process waits for (syncStoreCache). */
  syncs: Map<string, () => void>;
  /** Bumped by every invalidation: a read that began before the bump must not be cached. */
  generation: number;
  listening: Promise<boolean>;
};

const states = new WeakMap<DatabaseHandle, CacheState<unknown>>();

function stateOf<T>(database: DatabaseHandle): CacheState<T> {
  const existing = states.get(database);
  if (existing) return existing as CacheState<T>;
  const state: CacheState<T> = { entries: new Map(), syncs: new Map(), generation: 0, listening: Promise.resolve(false) };
  const dropAll = () => {
    state.generation++;
    state.entries.clear();
  };
  state.listening = subscribeChannel(database, storeChangedChannel, {
    onMessage(projectId) {
      if (projectId.startsWith(syncPrefix)) {
        state.syncs.get(projectId)?.();
        return;
      }
      state.generation++;
      if (projectId === '*') state.entries.clear();
      else state.entries.delete(projectId);
    },
    onResubscribe: dropAll,
  }).then(
    () => true,
    () => false,
  );
  states.set(database, state as CacheState<unknown>);
  return state;
}

export function storeCacheOf<T>(database: DatabaseHandle, options: { maxAgeMs: number; maxEntries: number }): StoreCache<T> {
  return {
    async get(projectId, load) {
      const state = stateOf<T>(database);
      const now = Date.now();
      const cached = state.entries.get(projectId);
      if (cached && now - cached.storedAt < options.maxAgeMs) return cached;
      const generation = state.generation;
      const value = await load();
      const fresh = { value, json: JSON.stringify(value), storedAt: now };
      if ((await state.listening) && state.generation === generation) {
        state.entries.delete(projectId);
        state.entries.set(projectId, fresh);
        // Bounded: the least recently stored page goes first (a Map keeps insertion order).
        if (state.entries.size > options.maxEntries) state.entries.delete(state.entries.keys().next().value!);
      }
      return fresh;
    },
  };
}

/**
 * Waits until every store change committed before this call has reached this process's cache. Free
 * when nothing is cached (nothing can be stale); otherwise one NOTIFY round trip. Gives up after
 * syncTimeoutMs and drops the cache instead, so a lost marker costs a rebuild, never a stale page.
 */
export async function syncStoreCache(database: DatabaseHandle): Promise<void> {
  const state = states.get(database);
  if (!state || state.entries.size === 0 || !(await state.listening)) return;
  const marker = `${syncPrefix}${crypto.randomUUID()}`;
  const arrived = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), syncTimeoutMs);
    state.syncs.set(marker, () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  try {
    await database.db.execute(sql`select pg_notify(${storeChangedChannel}, ${marker})`);
    if (!(await arrived)) {
      state.generation++;
      state.entries.clear();
    }
  } finally {
    state.syncs.delete(marker);
  }
}
