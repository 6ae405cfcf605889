import { expect, test } from 'bun:test';
import { loadConfig } from '../../src/server/config.ts';
import { decoyPasswordHash, hashPassword, verifyPasswordHash } from '../../src/server/domains/auth/password-hash.ts';

const config = (env: Record<string, string> = {}) => loadConfig({ DATA_DIR: '/tmp/unused', SECRET_KEY: 'k'.repeat(32), ...env });

test('by default passwords are hashed with Argon2id at 64 MiB and 2 passes', async () => {
  const cost = config().passwordHash;
  expect(cost).toEqual({ memoryKib: 65_536, timeCost: 2 });
  const hash = await hashPassword(cost, 'correct horse');
  expect(hash).toStartWith('$argon2id$v=19$m=65536,t=2,');
  expect(await verifyPasswordHash('correct horse', hash)).toBe(true);
  expect(await verifyPasswordHash('correct horse ', hash)).toBe(false);
});

test('the configured cost is what new hashes use, and a hash of any cost still verifies', async () => {
  const cheap = config({ PASSWORD_HASH_MEMORY_KIB: '64', PASSWORD_HASH_TIME_COST: '1' }).passwordHash;
  const hash = await hashPassword(cheap, 'pw');
  expect(hash).toStartWith('$argon2id$v=19$m=64,t=1,');
  expect(await verifyPasswordHash('pw', hash)).toBe(true);
  const decoy = await decoyPasswordHash(cheap);
  expect(decoy).toStartWith('$argon2id$v=19$m=64,t=1,');
  expect(await decoyPasswordHash(cheap)).toBe(decoy);
  expect(await verifyPasswordHash('pw', decoy)).toBe(false);
});

test('costs outside Argon2id limits are configuration errors', () => {
  const bad: Record<string, string>[] = [{ PASSWORD_HASH_MEMORY_KIB: '8' }, { PASSWORD_HASH_TIME_COST: '0' }, { PASSWORD_HASH_MEMORY_KIB: 'lots' }];
  for (const env of bad) {
    expect(() => config(env)).toThrow();
  }
});
