import type { Config } from '../../config.ts';

/**
 * Argon2id password hashes. The cost is the instance's (PASSWORD_HASH_MEMORY_KIB, PASSWORD_HASH_TIME_COST;
 * defaults are Bun's, 64 MiB and 2 passes); a stored hash names its own cost, so verifying works
 * whatever the setting was when it was made, and raising the cost applies to new passwords.
 */
export type PasswordHashCost = Config['passwordHash'];

export function hashPassword(cost: PasswordHashCost, password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: 'argon2id', memoryCost: cost.memoryKib, timeCost: cost.timeCost });
}

export function verifyPasswordHash(password: string, hash: string): Promise<boolean> {
  return Bun.password.verify(password, hash);
}

/** Verifying against a real hash of the same cost for unknown names keeps their timing equal to wrong passwords. */
const decoys = new Map<string, Promise<string>>();

export function decoyPasswordHash(cost: PasswordHashCost): Promise<string> {
  const key = `${cost.memoryKib}:${cost.timeCost}`;
  let decoy = decoys.get(key);
  if (!decoy) decoys.set(key, (decoy = hashPassword(cost, crypto.randomUUID())));
  return decoy;
}
