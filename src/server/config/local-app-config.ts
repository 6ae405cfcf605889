import { dirname, join, resolve } from 'node:path';

/**
 * True inside the executable of build-binary.ts: Bun runs its modules from an embedded file system
 * (/$bunfs/root on Unix, B:\~BUN\root on Windows).
 */
export function runsCompiled(moduleDir = import.meta.dir): boolean {
  return moduleDir.startsWith('/$bunfs') || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(moduleDir);
}

/**
 * The local companion app's builds offered for download (domains/local-app): the folder holding
 * `cartridge-helper-<platform>` files, and whether the server may build the one of its own platform
 * on the first request when it is missing (from source with the default folder only).
 */
export type LocalAppConfig = { dir: string; buildOnDemand: boolean };

/**
 * LOCAL_APP_DIR, else the local-app folder beside the compiled executable (build-binary.ts builds the
 * helper there), else dist/local-app of the source tree (npm run build:helper). Only the last may be
 * filled on demand (domains/local-app): an explicit folder belongs to the operator, and the binary has
 * no source to build from.
 */
export function localAppConfigOf(fromEnv: string | undefined): LocalAppConfig {
  if (fromEnv) return { dir: resolve(fromEnv), buildOnDemand: false };
  if (runsCompiled()) return { dir: join(dirname(process.execPath), 'local-app'), buildOnDemand: false };
  // `bun test` never compiles on demand (test servers share the source tree's folder).
  return { dir: resolve(import.meta.dir, '..', '..', '..', 'dist', 'local-app'), buildOnDemand: process.env.NODE_ENV !== 'test' };
}
