import { hkdfSync } from 'node:crypto';
import type { KeyPurpose } from './purposes.ts';

const salt = 'cartridge keyring';

/** A 256-bit sub-key of secretKey for one purpose (HKDF-SHA256): knowing one sub-key reveals no other. */
export function deriveKey(secretKey: string, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, salt, `cartridge ${purpose} v1`, 32));
}
