import { and, eq } from 'drizzle-orm';
import { ConfigError } from '../config.ts';
import type { Database } from '../db/client.ts';
import { instanceFacts } from '../db/schema/index.ts';
import type { KeyringSecrets } from './keyring.ts';
import { secretKeyId } from './sealing.ts';

/**
 * Every process of an instance must hold the same SECRET_KEY: behind a load balancer, a process with
 * another key rejects the download links, play paths and job tokens the others sign, and cannot open
 * what they seal, at random, request by request. The database records the key id (never the key) the
 * first process started with; a process whose key is another refuses to start, in one sentence.
 *
 * - recorded: the first start of this database (or of this version on it);
 * - same: the key the instance uses;
 * - rotated: the instance's key is this process's SECRET_KEY_PREVIOUS: the first process restarted for a
 *   rotation (README, "Rotating the secret key") records the new key; the others follow with the same two.
 */
export type InstanceKeyCheck = { outcome: 'recorded' | 'same' | 'rotated'; keyId: string };

export async function checkInstanceKey(db: Database, secrets: KeyringSecrets): Promise<InstanceKeyCheck> {
  const keyId = secretKeyId(secrets.secretKey);
  const previousKeyId = secrets.previousSecretKey !== undefined ? secretKeyId(secrets.previousSecretKey) : undefined;
  // Two processes starting at once on an empty record: one inserts, the other reads what it inserted.
  const inserted = await db.insert(instanceFacts).values({ id: 1, secretKeyId: keyId }).onConflictDoNothing().returning({ id: instanceFacts.id });
  if (inserted.length > 0) return { outcome: 'recorded', keyId };
  const [row] = await db.select({ keyId: instanceFacts.secretKeyId }).from(instanceFacts).where(eq(instanceFacts.id, 1));
  if (row?.keyId === keyId) return { outcome: 'same', keyId };
  if (row && previousKeyId !== undefined && row.keyId === previousKeyId) {
    const rotated = await db
      .update(instanceFacts)
      .set({ secretKeyId: keyId, updatedAt: new Date() })
      .where(and(eq(instanceFacts.id, 1), eq(instanceFacts.secretKeyId, previousKeyId)))
      .returning({ id: instanceFacts.id });
    // Another process of the same rotation may have recorded it first: then the record is this key.
    if (rotated.length > 0) return { outcome: 'rotated', keyId };
    return checkInstanceKey(db, { secretKey: secrets.secretKey });
  }
  throw new ConfigError(
    `SECRET_KEY is not the key this instance's other processes use (the database records key id ${row?.keyId ?? '?'}; this process has key id ${keyId}). ` +
      'Start every process with the same SECRET_KEY (a generated key is DATA_DIR/secret.key); to rotate it, set SECRET_KEY_PREVIOUS to the old key (README, "Rotating the secret key"). ' +
      'To make this key the instance key anyway, after which secrets sealed with the old key no longer open, run: cartridge admin adopt-secret-key',
  );
}

/** `cartridge admin adopt-secret-key`: records this environment's SECRET_KEY as the instance's key. */
export async function adoptInstanceKey(db: Database, secretKey: string): Promise<{ keyId: string; previousKeyId: string | null }> {
  const keyId = secretKeyId(secretKey);
  const [row] = await db.select({ keyId: instanceFacts.secretKeyId }).from(instanceFacts).where(eq(instanceFacts.id, 1));
  await db
    .insert(instanceFacts)
    .values({ id: 1, secretKeyId: keyId })
    .onConflictDoUpdate({ target: instanceFacts.id, set: { secretKeyId: keyId, updatedAt: new Date() } });
  return { keyId, previousKeyId: row?.keyId ?? null };
}
