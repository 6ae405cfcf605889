import type { Config } from './config.ts';
import { createKeyring } from './crypto/index.ts';
import { checkInstanceKey } from './crypto/instance-key.ts';
import { openDatabase, pgliteDirOf } from './db/client.ts';
import { migrateDatabase } from './db/migrate.ts';
import { stopImageWork } from './domains/content-images/image-worker/image-work.ts';
import type { Deps } from './deps.ts';
import { defaultDocsLibrary } from './domains/docs/docs.service.ts';
import { createJobSignal } from './jobs/signal.ts';
import { createLogger, type Logger } from './logger.ts';
import { createBlobStore, createFileCache, withCacheGivingWay } from './storage/index.ts';

/** Composition root minus listening: config → database (migrated, its key checked) → storage → deps. */
export async function bootDeps(config: Config, options: { log?: Logger; pgliteTemplate?: Blob; inMemoryPglite?: boolean } = {}): Promise<Deps> {
  const log = options.log ?? createLogger(config.logLevel);
  const database = await openDatabase({
    url: config.databaseUrl,
    pgliteDir: options.inMemoryPglite ? undefined : pgliteDirOf(config.dataDir),
    pgliteTemplate: options.pgliteTemplate,
  });
  try {
    await migrateDatabase(database);
    // A process with another SECRET_KEY than the instance's others refuses to start (ConfigError).
    const key = await checkInstanceKey(database.db, { secretKey: config.secretKey, previousSecretKey: config.previousSecretKey });
    if (key.outcome !== 'same') log.info(key.outcome === 'rotated' ? 'secret key rotated' : 'secret key recorded', { keyId: key.keyId });
  } catch (error) {
    await database.close();
    throw error;
  }
  const fileCache = createFileCache({ dir: config.downloads.cacheDir, maxBytes: config.downloads.cacheBytes, freeFloor: config.downloads.freeFloor });
  const storage = withCacheGivingWay(createBlobStore(config.storageUrl, { dataDir: config.dataDir }), fileCache);
  const keys = createKeyring({ secretKey: config.secretKey, previousSecretKey: config.previousSecretKey });
  return { config, keys, db: database.db, database, storage, fileCache, log, jobSignal: createJobSignal(), docs: defaultDocsLibrary() };
}

export async function closeDeps(deps: Deps): Promise<void> {
  await stopImageWork(deps);
  await deps.storage.close?.();
  await deps.database.close();
}
