import { describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { createSigner, signingPurposes } from '../../../src/server/crypto/index.ts';

const secretKey = 'signer-test-secret-key-long-enough-0123456789';

describe('createSigner', () => {
  test('signs as base64url HMAC-SHA256 and verifies its own signatures', () => {
    const signer = createSigner(secretKey, signingPurposes.downloadUrl);
    const signature = signer.sign('package|zip|1700000000');
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signer.sign('package|zip|1700000000')).toBe(signature);
    expect(signer.verify('package|zip|1700000000', signature)).toBe(true);
  });

  test('refuses another message, an altered, truncated or extended signature, and garbage', () => {
    const signer = createSigner(secretKey, signingPurposes.jobToken);
    const signature = signer.sign('job1');
    expect(signer.verify('job2', signature)).toBe(false);
    for (let index = 0; index < signature.length; index++) {
      const replacement = signature[index] === 'A' ? 'B' : 'A';
      expect(signer.verify('job1', signature.slice(0, index) + replacement + signature.slice(index + 1))).toBe(false);
    }
    expect(signer.verify('job1', signature.slice(0, -1))).toBe(false);
    expect(signer.verify('job1', `${signature}A`)).toBe(false);
    expect(signer.verify('job1', '')).toBe(false);
    expect(signer.verify('job1', 'é'.repeat(43))).toBe(false);
  });

  test('each purpose has its own key: a signature of one purpose is refused by every other', () => {
    const purposes = Object.values(signingPurposes);
    expect(new Set(purposes).size).toBe(purposes.length);
    const signatures = purposes.map((purpose) => createSigner(secretKey, purpose).sign('same message'));
    expect(new Set(signatures).size).toBe(purposes.length);
    for (const [index, purpose] of purposes.entries()) {
      const signer = createSigner(secretKey, purpose);
      for (const [otherIndex, signature] of signatures.entries()) expect(signer.verify('same message', signature)).toBe(index === otherIndex);
    }
  });

  test('the key is derived, not SECRET_KEY itself, and another secret key signs differently', () => {
    const signer = createSigner(secretKey, signingPurposes.playPath);
    const plain = createHmac('sha256', secretKey).update('message').digest('base64url');
    expect(signer.sign('message')).not.toBe(plain);
    const other = createSigner('another-secret-key-that-is-long-enough-000', signingPurposes.playPath);
    expect(other.sign('message')).not.toBe(signer.sign('message'));
    expect(other.verify('message', signer.sign('message'))).toBe(false);
  });

  test('a purpose outside the closed list is refused', () => {
    expect(() => createSigner(secretKey, 'secret-sealing' as never)).toThrow('not a signing purpose');
    expect(() => createSigner(secretKey, 'anything' as never)).toThrow('not a signing purpose');
  });
});
