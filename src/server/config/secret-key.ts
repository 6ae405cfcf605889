import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The key is generated once and kept in DATA_DIR so restarts can still decrypt what it sealed. */
export function readOrCreateSecretKey(dataDir: string): string {
  const path = join(dataDir, 'secret.key');
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64url');
  writeFileSync(path, key + '\n', { mode: 0o600, flag: 'wx' });
  return key;
}
