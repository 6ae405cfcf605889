import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from './derive-key.ts';
import { isSigningPurpose, type SigningPurpose } from './purposes.ts';

/** HMAC-SHA256 under the purpose's own key; signatures are base64url (43 characters). */
export type Signer = {
  sign(message: string): string;
  /** Constant time in the signature's content; false for anything but this purpose's exact signature. */
  verify(message: string, signature: string): boolean;
};

export function createSigner(secretKey: string, purpose: SigningPurpose): Signer {
  if (!isSigningPurpose(purpose)) throw new Error(`not a signing purpose: ${String(purpose)}`);
  const key = deriveKey(secretKey, purpose);
  const sign = (message: string) => createHmac('sha256', key).update(message).digest('base64url');
  return {
    sign,
    verify(message, signature) {
      // Compared as text, not decoded: base64url's spare bits would let altered text pass as the same bytes.
      const expected = Buffer.from(sign(message));
      const given = Buffer.from(signature);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
