import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../../db/client.ts';
import { subscribeChannel } from '../../db/notify.ts';
import { AppError } from '../../errors.ts';

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
 * The store index keeps one list of every listed project the same way (storeListOf): a notification
 * marks its project dirty and the next read reloads only the dirty projects ('*', a re-established
 * LISTEN or the age limit reload the whole list), so thousands of projects cost one query per change,
 * not one per read.
 *
 * Read-your-writes: a change's notification travels on another connection than its commit, so it can
 * arrive just after the writer got its answer. syncStoreCache (run after every write request of this
 * process) sends a marker NOTIFY and waits for it: PostgreSQL delivers notifications in commit order,
 * so once the marker is back every earlier change has been applied to the cache.
 *
 * Behind a load balancer the write and the next read may reach different processes: the reader
 * never ran that sync. So on PostgreSQL (where other processes may write) a signed-in caller's read
 * that would be answered from the cache first catches up the same way (catchUp): a marker sent after
 * the read arrived, so every change committed before it has been applied when it is back. Readers
 * arriving together share one marker, and at most one is in flight per process (plus the one queued
 * after it), so the cost is one round trip per read at most and does not grow with the read rate.
 * Visitors (no token, no session cookie) cannot have written anything a page shows: they are answered
 * at once, and see another process's change when its notification arrives (milliseconds). PGlite has
 * one process: no wait.
 */
const storeChangedChannel = 'store_changed';

type Entry<T> = { value: T; json: string; storedAt: number };

/**
 * Who reads. A signed-in caller (a bearer token or a session cookie) may have just changed what it
 * reads through another process: its reads catch up first (catchUp). The default, for callers that
 * cannot tell.
 */
export type StoreReader = { signedIn: boolean };
const signedIn: StoreReader = { signedIn: true };

/** The reader a request's credentials make (REST: its headers; tRPC: its context), valid or not. */
export function storeReaderOf(credentials: { token?: string | undefined; cookieToken?: string | undefined }): StoreReader {
  return { signedIn: credentials.token !== undefined || credentials.cookieToken !== undefined };
}

export type StoreCache<T> = {
  /** The cached page (and its JSON), or a fresh one from load (cached when still valid). */
  get(projectId: string, load: () => Promise<T>, reader?: StoreReader): Promise<{ value: T; json: string }>;
};

const syncPrefix = 'sync:';
const syncTimeoutMs = 2000;

/** One list of the store (the index): items by project id, and what must be reloaded before the next read. */
type ListState = {
  items: Map<string, unknown> | undefined;
  loadedAt: number;
  /** Projects whose notification arrived since their item was read. */
  dirty: Set<string>;
  /** Reload everything ('*', a re-established LISTEN, a lost sync marker, too many dirty projects). */
  allDirty: boolean;
  /** What is derived from the items (derive), dropped whenever they change. */
  derived: Map<string, unknown>;
  /** The refresh under way: one at a time, the others wait for it. */
  refreshing: Promise<void> | undefined;
};

type CacheState<T> = {
  entries: Map<string, Entry<T>>;
  /**
   * Ids the store answered not_found for (unknown, private, deleted), with that error: a crawler or a
   * scan of made-up ids costs no query per request. Dropped with the entries by the same notifications
   * (a project made public, created or changed notifies its id). Bounded apart from `entries`, so made-up
   * ids never push real pages out.
   */
  missing: Map<string, { error: unknown; storedAt: number }>;
  lists: Map<string, ListState>;
  /** Marker notifications this process waits for (syncStoreCache). */
  syncs: Map<string, () => void>;
  /** Bumped by every invalidation: a read that began before the bump must not be cached. */
  generation: number;
  listening: Promise<boolean>;
  /** catchUp's marker round trip in flight, and the one queued to start after it (joined by later readers). */
  catchUp: { running: Promise<void> | undefined; queued: Promise<void> | undefined };
};

const states = new WeakMap<DatabaseHandle, CacheState<unknown>>();
/** More dirty projects than this and the whole list is reloaded (one query beats a huge IN list). */
const maxDirty = 500;

function dropEverything(state: CacheState<unknown>): void {
  state.generation++;
  state.entries.clear();
  state.missing.clear();
  for (const list of state.lists.values()) list.allDirty = true;
}

function stateOf<T>(database: DatabaseHandle): CacheState<T> {
  const existing = states.get(database);
  if (existing) return existing as CacheState<T>;
  const state: CacheState<T> = {
    entries: new Map(),
    missing: new Map(),
    lists: new Map(),
    syncs: new Map(),
    generation: 0,
    listening: Promise.resolve(false),
    catchUp: { running: undefined, queued: undefined },
  };
  const dropAll = () => dropEverything(state as CacheState<unknown>);
  state.listening = subscribeChannel(database, storeChangedChannel, {
    onMessage(projectId) {
      if (projectId.startsWith(syncPrefix)) {
        state.syncs.get(projectId)?.();
        return;
      }
      if (projectId === '*') {
        dropAll();
        return;
      }
      state.generation++;
      state.entries.delete(projectId);
      state.missing.delete(projectId);
      for (const list of state.lists.values()) {
        if (list.allDirty) continue;
        list.dirty.add(projectId);
        if (list.dirty.size > maxDirty) list.allDirty = true;
      }
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
    async get(projectId, load, reader = signedIn) {
      const state = stateOf<T>(database);
      const now = Date.now();
      const cached = state.entries.get(projectId);
      const missing = state.missing.get(projectId);
      if (isFresh(cached, now, options.maxAgeMs) || isFresh(missing, now, options.maxAgeMs)) {
        // This caller may have changed it through another process just before: hear of that first.
        if (reader.signedIn) await catchUp(database, state as CacheState<unknown>);
        const current = state.entries.get(projectId);
        if (isFresh(current, now, options.maxAgeMs)) return current;
        const stillMissing = state.missing.get(projectId);
        if (isFresh(stillMissing, now, options.maxAgeMs)) throw stillMissing.error;
      }
      const generation = state.generation;
      let value: T;
      try {
        value = await load();
      } catch (error) {
        if (error instanceof AppError && error.code === 'not_found' && isProjectIdShape(projectId) && (await state.listening) && state.generation === generation) {
          state.missing.delete(projectId);
          state.missing.set(projectId, { error, storedAt: now });
          if (state.missing.size > options.maxEntries) state.missing.delete(state.missing.keys().next().value!);
        }
        throw error;
      }
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

type StoreListLoaders<T> = {
  /** Every item of the list, by project id. */
  all(): Promise<Map<string, T>>;
  /** The current items of these projects (absent: the project is not in the list any more). */
  some(projectIds: string[]): Promise<Map<string, T>>;
};

export type StoreListView<T> = {
  items: ReadonlyMap<string, T>;
  /** What `compute` made from this version of the items, kept until they change (e.g. a sort per language). */
  derive<D>(key: string, compute: () => D): D;
};

export type StoreList<T> = {
  /** The list, brought up to date first: dirty projects through `some`, everything through `all` when needed. */
  get(loaders: StoreListLoaders<T>, reader?: StoreReader): Promise<StoreListView<T>>;
};

function listOf(state: CacheState<unknown>, name: string): ListState {
  let list = state.lists.get(name);
  if (!list) {
    list = { items: undefined, loadedAt: 0, dirty: new Set(), allDirty: true, derived: new Map(), refreshing: undefined };
    state.lists.set(name, list);
  }
  return list;
}

function viewOf<T>(items: ReadonlyMap<string, T>, derived: Map<string, unknown> | undefined): StoreListView<T> {
  return {
    items,
    derive<D>(key: string, compute: () => D): D {
      if (!derived) return compute();
      if (!derived.has(key)) {
        // Bounded: a caller asking for many keys (languages) between two changes recomputes instead.
        if (derived.size >= 32) derived.clear();
        derived.set(key, compute());
      }
      return derived.get(key) as D;
    },
  };
}

/**
 * A list kept per process under `name`, exact by the same notifications as the pages: each notified
 * project is reloaded on the next read (a notification arriving while a reload runs marks it dirty
 * again, so nothing read before a change survives it), everything after maxAgeMs. Refreshes run one at
 * a time; readers that arrive meanwhile wait for it. Without a LISTEN nothing is kept.
 */
export function storeListOf<T>(database: DatabaseHandle, name: string, options: { maxAgeMs: number }): StoreList<T> {
  return {
    async get(loaders, reader = signedIn) {
      const state = stateOf<T>(database) as CacheState<unknown>;
      if (!(await state.listening)) return viewOf(await loaders.all(), undefined);
      const list = listOf(state, name);
      // Changes other processes committed before this read are marked dirty before it looks.
      if (list.items && reader.signedIn) await catchUp(database, state);
      for (;;) {
        if (list.refreshing) {
          await list.refreshing.catch(() => undefined);
          continue;
        }
        const stale = !list.items || list.allDirty || Date.now() - list.loadedAt >= options.maxAgeMs;
        if (!stale && list.dirty.size === 0) return viewOf(list.items as Map<string, T>, list.derived);
        list.refreshing = refreshList(list, loaders, stale).finally(() => {
          list.refreshing = undefined;
        });
        await list.refreshing;
        return viewOf(list.items as Map<string, T>, list.derived);
      }
    },
  };
}

async function refreshList<T>(list: ListState, loaders: StoreListLoaders<T>, everything: boolean): Promise<void> {
  if (everything) {
    // Cleared before the read: what is notified from now on is reloaded next time.
    list.allDirty = false;
    list.dirty.clear();
    const startedAt = Date.now();
    try {
      list.items = (await loaders.all()) as Map<string, unknown>;
    } catch (error) {
      list.allDirty = true;
      throw error;
    }
    list.loadedAt = startedAt;
  } else {
    const ids = [...list.dirty];
    list.dirty.clear();
    let fresh: Map<string, T>;
    try {
      fresh = await loaders.some(ids);
    } catch (error) {
      for (const id of ids) list.dirty.add(id);
      throw error;
    }
    // A full reload ordered meanwhile ('*') wins; the items stay as they were until it runs.
    if (list.allDirty || !list.items) return;
    for (const id of ids) {
      const item = fresh.get(id);
      if (item === undefined) list.items.delete(id);
      else list.items.set(id, item);
    }
  }
  list.derived = new Map();
}

/** Only ids shaped like the server's (db/ids.ts) are remembered as missing: a huge made-up one is not kept. */
function isProjectIdShape(id: string): boolean {
  return /^[0-9a-z]{1,40}$/.test(id);
}

function isFresh<T extends { storedAt: number }>(entry: T | undefined, now: number, maxAgeMs: number): entry is T {
  return entry !== undefined && now - entry.storedAt < maxAgeMs;
}

/**
 * Before an answer from the cache on PostgreSQL: waits until every store change committed before this
 * call (by any process) has reached this process's cache, with a marker of its own (syncStoreCache).
 * A round trip already in flight may have sent its marker before the reader's change committed, so a
 * reader joins the round queued after it (starting it if none is), never the running one.
 */
function catchUp(database: DatabaseHandle, state: CacheState<unknown>): Promise<void> {
  if (database.kind !== 'postgres') return Promise.resolve();
  const rounds = state.catchUp;
  if (rounds.queued) return rounds.queued;
  const start = (): Promise<void> => {
    rounds.queued = undefined;
    const round = syncStoreCache(database)
      .catch(() => dropEverything(state))
      .finally(() => {
        if (rounds.running === round) rounds.running = undefined;
      });
    rounds.running = round;
    return round;
  };
  if (!rounds.running) return start();
  rounds.queued = rounds.running.then(start);
  return rounds.queued;
}

/**
 * Waits until every store change committed before this call has reached this process's cache. Free
 * when nothing is cached (nothing can be stale); otherwise one NOTIFY round trip. Gives up after
 * syncTimeoutMs and drops the cache instead, so a lost marker costs a rebuild, never a stale page.
 */
export async function syncStoreCache(database: DatabaseHandle): Promise<void> {
  const state = states.get(database);
  if (!state || !holdsAnything(state) || !(await state.listening)) return;
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
    if (!(await arrived)) dropEverything(state);
  } finally {
    state.syncs.delete(marker);
  }
}

function holdsAnything(state: CacheState<unknown>): boolean {
  if (state.entries.size > 0) return true;
  for (const list of state.lists.values()) if (list.items) return true;
  return false;
}
