import type { Config } from './config.ts';
import type { Keyring } from './crypto/index.ts';
import type { Database, DatabaseHandle } from './db/client.ts';
import type { DocsLibrary } from './domains/docs/docs.service.ts';
import type { JobSignal } from './jobs/signal.ts';
import type { Logger } from './logger.ts';
import type { BlobStore, FileCache } from './storage/index.ts';

/** Everything a service needs from the outside world, built once by the composition root. */
export type Deps = {
  config: Config;
  /** Signers and sealing derived from SECRET_KEY (crypto/keyring.ts). */
  keys: Keyring;
  db: Database;
  database: DatabaseHandle;
  storage: BlobStore;
  /** Generated downloads kept on local disk (sent with sendfile). */
  fileCache: FileCache;
  log: Logger;
  /** Wakes this process's job workers after a service queued a job (see jobs/signal.ts). */
  jobSignal: JobSignal;
  /** The user docs (DOCS_DIR, the binary's embedded pages or docs/), chosen when the process starts. */
  docs: DocsLibrary;
};
