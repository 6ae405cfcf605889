import { describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { generateToken, hashToken } from '../../../src/server/crypto/index.ts';

describe('bearer tokens', () => {
  test('carry their prefix and 256 random bits, never the same twice', () => {
    const tokens = Array.from({ length: 100 }, () => generateToken('ct'));
    for (const token of tokens) expect(token).toMatch(/^ct_[A-Za-z0-9_-]{43}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(generateToken('cs')).toStartWith('cs_');
    expect(generateToken('ci')).toStartWith('ci_');
  });

  test('are stored as their SHA-256 in hex', () => {
    const token = generateToken('cs');
    expect(hashToken(token)).toBe(createHash('sha256').update(token).digest('hex'));
    expect(hashToken(token)).not.toBe(hashToken(generateToken('cs')));
  });
});
