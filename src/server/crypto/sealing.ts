import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { deriveKey } from './derive-key.ts';
import { sealingPurpose } from './purposes.ts';

/**
 * Secrets kept at rest (deploy credentials, ...) are sealed with AES-256-GCM under a key derived from
 * SECRET_KEY: `v1.{keyId}.{nonce}.{ciphertext and tag}`, base64url parts. The key id names the key that
 * sealed it, so after a rotation (SECRET_KEY_PREVIOUS) old values still open while new ones use the
 * current key; the version and key id are authenticated with the ciphertext.
 */
export type Sealer = {
  sealSecret(plaintext: string): string;
  /** The plaintext; SealedSecretError when altered, malformed, of an unknown version or of a key not held. */
  openSecret(sealed: string): string;
  /** The same secret sealed under the current key (unchanged when it already is): re-seal on rotation. */
  resealSecret(sealed: string): string;
};

export class SealedSecretError extends Error {
  override name = 'SealedSecretError';
}

const version = 'v1';
const nonceBytes = 12;
const tagBytes = 16;

type SealingKey = { id: string; key: Buffer };

function sealingKeyOf(secretKey: string): SealingKey {
  const key = deriveKey(secretKey, sealingPurpose);
  return { id: createHash('sha256').update(key).digest().subarray(0, 6).toString('base64url'), key };
}

/** Strict base64url: non-canonical text (spare bits set) would let an altered value open. */
function decodePart(text: string): Buffer {
  const bytes = Buffer.from(text, 'base64url');
  if (!/^[A-Za-z0-9_-]+$/.test(text) || bytes.toString('base64url') !== text) throw new SealedSecretError('The sealed secret is malformed');
  return bytes;
}

function seal(sealingKey: SealingKey, plaintext: string): string {
  const header = `${version}.${sealingKey.id}`;
  const nonce = randomBytes(nonceBytes);
  const cipher = createCipheriv('aes-256-gcm', sealingKey.key, nonce);
  cipher.setAAD(Buffer.from(header));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${header}.${nonce.toString('base64url')}.${body.toString('base64url')}`;
}

function open(keys: Map<string, SealingKey>, sealed: string): string {
  const parts = sealed.split('.');
  if (parts[0] !== version) throw new SealedSecretError('The sealed secret has an unknown format version');
  if (parts.length !== 4) throw new SealedSecretError('The sealed secret is malformed');
  const [, keyId, nonceText, bodyText] = parts as [string, string, string, string];
  const sealingKey = keys.get(keyId);
  if (!sealingKey) throw new SealedSecretError('The secret was sealed with a key this server does not have (SECRET_KEY, SECRET_KEY_PREVIOUS)');
  const nonce = decodePart(nonceText);
  const body = decodePart(bodyText);
  if (nonce.length !== nonceBytes || body.length < tagBytes) throw new SealedSecretError('The sealed secret is malformed');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey.key, nonce);
  decipher.setAAD(Buffer.from(`${version}.${keyId}`));
  decipher.setAuthTag(body.subarray(body.length - tagBytes));
  try {
    return Buffer.concat([decipher.update(body.subarray(0, body.length - tagBytes)), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedSecretError('The sealed secret does not authenticate: it was altered');
  }
}

/**
 * The id a SECRET_KEY is known by (6 bytes of the SHA-256 of the sealing key derived from it; it reveals
 * nothing of the key): sealed values, backups and the instance's record (instance-key.ts) name it so.
 */
export function secretKeyId(secretKey: string): string {
  return sealingKeyOf(secretKey).id;
}

export function createSealer(secretKey: string, previousSecretKey?: string): Sealer {
  const current = sealingKeyOf(secretKey);
  const keys = new Map<string, SealingKey>();
  if (previousSecretKey !== undefined) {
    const previous = sealingKeyOf(previousSecretKey);
    keys.set(previous.id, previous);
  }
  keys.set(current.id, current);
  return {
    sealSecret: (plaintext) => seal(current, plaintext),
    openSecret: (sealed) => open(keys, sealed),
    resealSecret(sealed) {
      const plaintext = open(keys, sealed);
      return sealed.split('.')[1] === current.id ? sealed : seal(current, plaintext);
    },
  };
}
