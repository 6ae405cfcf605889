import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import { join } from 'node:path';
import type { DatabaseHandle } from './client.ts';

declare const CARTRIDGE_EMBEDDED_MIGRATIONS: MigrationMeta[] | undefined;

const migrationsFolder = join(import.meta.dir, '..', '..', '..', 'drizzle');
/** Any constant works as long as every process uses the same one. */
const migrationLockId = 7_303_001;

/** In the compiled binary the migrations are bundled as JSON at build time; from source they are read. */
export function loadMigrations(): MigrationMeta[] {
  if (typeof CARTRIDGE_EMBEDDED_MIGRATIONS !== 'undefined') return CARTRIDGE_EMBEDDED_MIGRATIONS;
  return readMigrationFiles({ migrationsFolder });
}

/**
/**
 * Applies pending migrations. On PostgreSQL an advisory lock serialises processes that start at once,
 * so N replicas can boot together.
 */
export async function migrateDatabase(handle: DatabaseHandle, migrations = loadMigrations()): Promise<void> {
  // drizzle's dialect.migrate is the engine behind both drivers' migrators; it takes the list directly.
  const internals = handle.db as unknown as {
    dialect: { migrate(list: MigrationMeta[], session: unknown, config: object): Promise<void> };
    session: unknown;
  };
  await handle.withAdvisoryLock(migrationLockId, () =>
    internals.dialect.migrate(migrations, internals.session, { migrationsFolder }),
  );
}
