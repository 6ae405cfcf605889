import { Elysia } from 'elysia';
import type { Deps } from '../deps.ts';
import { syncStoreCache } from '../domains/store/store-cache.ts';

const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * After a request that may have written (any method but GET/HEAD/OPTIONS, tRPC mutations included),
 * the answer waits until this process's store cache has seen the write's notification, so a client
 * that changed something and then opens the store page sees the change.
 */
export function storeCacheSync(deps: Deps) {
  return new Elysia({ name: 'store-cache-sync' }).onAfterHandle({ as: 'global' }, async ({ request }) => {
    if (!readMethods.has(request.method)) await syncStoreCache(deps.database);
  });
}
