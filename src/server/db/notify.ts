import type { DatabaseHandle } from './client.ts';

/**
 * LISTEN for one channel, shared by every subscriber of this process: one LISTEN per database handle
 * and channel, on postgres.js's dedicated listen connection (PostgreSQL) or PGlite's own client.
 *
 * NOTIFY sent inside a transaction is delivered at commit, and never within a session is one dropped;
 * but a PostgreSQL listener that loses its connection misses what was sent meanwhile. postgres.js
 * re-listens after reconnecting and calls `onListen` each time: subscribers that cache must then
 * assume they missed something (onResubscribe).
 */
export type ChannelListener = {
  onMessage(payload: string): void;
  /** The LISTEN was (re)established after a gap: notifications may have been missed. */
  onResubscribe?(): void;
};

type PostgresClient = {
  listen(channel: string, onNotify: (payload: string) => void, onListen?: () => void): Promise<{ unlisten(): Promise<void> }>;
};
type PgliteClient = {
  listen(channel: string, onNotify: (payload: string) => void): Promise<(() => Promise<void>) | undefined>;
};

type Hub = { listeners: Set<ChannelListener>; listening: Promise<() => Promise<void>> | undefined; listens: number };
const hubs = new WeakMap<DatabaseHandle, Map<string, Hub>>();

function hubOf(database: DatabaseHandle, channel: string): Hub {
  let channels = hubs.get(database);
  if (!channels) {
    channels = new Map();
    hubs.set(database, channels);
  }
  let hub = channels.get(channel);
  if (!hub) {
    hub = { listeners: new Set(), listening: undefined, listens: 0 };
    channels.set(channel, hub);
  }
  return hub;
}

async function startListening(database: DatabaseHandle, channel: string, hub: Hub): Promise<() => Promise<void>> {
  // Listeners only schedule work; one failing must not keep the others from hearing.
  const each = (call: (listener: ChannelListener) => void) => {
    for (const listener of hub.listeners) {
      try {
        call(listener);
      } catch {
        /* the listener's own problem */
      }
    }
  };
  const deliver = (payload: string) => each((listener) => listener.onMessage(payload));
  const client = (database.db as unknown as { $client: unknown }).$client;
  if (database.kind === 'postgres') {
    const { unlisten } = await (client as PostgresClient).listen(channel, deliver, () => {
      // The first call is the initial LISTEN; later ones follow a reconnect.
      if (hub.listens++ > 0) each((listener) => listener.onResubscribe?.());
    });
    return unlisten;
  }
  const unlisten = await (client as PgliteClient).listen(channel, deliver);
  return async () => {
    await unlisten?.();
  };
}

/**
 * Calls listener for every notification on channel from now on (by any process on this database). The
 * promise resolves once the LISTEN is in place, so state read afterwards misses nothing. Returns the
 * unsubscribe function; the last subscriber to leave ends the LISTEN.
 */
export async function subscribeChannel(database: DatabaseHandle, channel: string, listener: ChannelListener): Promise<() => void> {
  const hub = hubOf(database, channel);
  hub.listeners.add(listener);
  if (!hub.listening) {
    const listening = startListening(database, channel, hub);
    hub.listening = listening;
    // A failed LISTEN is forgotten so the next subscriber tries again.
    listening.catch(() => {
      if (hub.listening === listening) hub.listening = undefined;
    });
  }
  try {
    await hub.listening;
  } catch (error) {
    hub.listeners.delete(listener);
    throw error;
  }
  let subscribed = true;
  return () => {
    if (!subscribed) return;
    subscribed = false;
    hub.listeners.delete(listener);
    if (hub.listeners.size > 0 || !hub.listening) return;
    const listening = hub.listening;
    hub.listening = undefined;
    hub.listens = 0;
    listening.then((unlisten) => unlisten()).catch(() => {});
  };
}

/** How many subscribers this process has on a channel (tests check that streams clean up). */
export function channelSubscriberCount(database: DatabaseHandle, channel: string): number {
  return hubs.get(database)?.get(channel)?.listeners.size ?? 0;
}
