import { describe, expect, test } from 'bun:test';
import { createKeyring, createSealer, SealedSecretError } from '../../../src/server/crypto/index.ts';

const keyA = 'sealing-test-key-A-that-is-long-enough-0123456789';
const keyB = 'sealing-test-key-B-that-is-long-enough-0123456789';
const secret = 'deploy password: hunter2 ✓';

/** The parts of a sealed value: version, key id, nonce, ciphertext and tag. */
const partsOf = (sealed: string) => sealed.split('.') as [string, string, string, string];
const withPart = (sealed: string, index: number, value: string) => partsOf(sealed).map((part, at) => (at === index ? value : part)).join('.');
const flipCharAt = (text: string, index: number) => text.slice(0, index) + (text[index] === 'A' ? 'B' : 'A') + text.slice(index + 1);

function openingFails(open: () => string, message: RegExp): void {
  let thrown: unknown;
  try {
    open();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(SealedSecretError);
  expect((thrown as Error).message).toMatch(message);
  // Nothing secret in what may end up in a log.
  expect((thrown as Error).message).not.toContain('hunter2');
  expect((thrown as Error).message).not.toContain(keyA);
}

describe('sealSecret and openSecret', () => {
  test('round trip: text, Unicode, empty and large secrets', () => {
    const sealer = createSealer(keyA);
    for (const plaintext of [secret, '', 'x', '🔑'.repeat(1000), 'a'.repeat(200_000)]) {
      expect(sealer.openSecret(sealer.sealSecret(plaintext))).toBe(plaintext);
    }
  });

  test('the sealed text is v1.{keyId}.{nonce}.{ciphertext+tag} in base64url, with a fresh nonce each time', () => {
    const sealer = createSealer(keyA);
    const first = sealer.sealSecret(secret);
    const second = sealer.sealSecret(secret);
    expect(first).toMatch(/^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(first).not.toContain('hunter2');
    expect(first).not.toBe(second);
    expect(partsOf(first)[1]).toBe(partsOf(second)[1]);
    expect(partsOf(first)[2]).not.toBe(partsOf(second)[2]);
    // AES-GCM adds nothing but its 16-byte tag to the UTF-8 bytes.
    expect(Buffer.from(partsOf(first)[3], 'base64url').length).toBe(Buffer.byteLength(secret) + 16);
    expect(partsOf(createSealer(keyB).sealSecret(secret))[1]).not.toBe(partsOf(first)[1]);
  });

  test('an altered nonce, ciphertext or tag is detected, character by character', () => {
    const sealer = createSealer(keyA);
    const sealed = sealer.sealSecret(secret);
    const [, , nonce, body] = partsOf(sealed);
    for (let index = 0; index < nonce.length; index++) {
      openingFails(() => sealer.openSecret(withPart(sealed, 2, flipCharAt(nonce, index))), /altered|malformed/);
    }
    for (let index = 0; index < body.length; index++) {
      openingFails(() => sealer.openSecret(withPart(sealed, 3, flipCharAt(body, index))), /altered|malformed/);
    }
  });

  test('a truncated, extended or swapped part is detected', () => {
    const sealer = createSealer(keyA);
    const sealed = sealer.sealSecret(secret);
    const other = sealer.sealSecret(secret);
    const [, , nonce, body] = partsOf(sealed);
    openingFails(() => sealer.openSecret(withPart(sealed, 2, nonce.slice(0, -2))), /malformed/);
    openingFails(() => sealer.openSecret(withPart(sealed, 2, `${nonce}AA`)), /malformed/);
    openingFails(() => sealer.openSecret(withPart(sealed, 3, body.slice(0, -4))), /altered|malformed/);
    openingFails(() => sealer.openSecret(withPart(sealed, 3, `${body}AAAA`)), /altered|malformed/);
    openingFails(() => sealer.openSecret(withPart(sealed, 3, body.slice(0, 20))), /malformed/);
    openingFails(() => sealer.openSecret(withPart(sealed, 3, '')), /malformed/);
    openingFails(() => sealer.openSecret(withPart(sealed, 2, partsOf(other)[2])), /altered/);
    openingFails(() => sealer.openSecret(withPart(sealed, 3, partsOf(other)[3])), /altered/);
    openingFails(() => sealer.openSecret(withPart(sealed, 3, `${body}=`)), /malformed/);
    openingFails(() => sealer.openSecret(withPart(sealed, 3, body.replace(/.$/, '+'))), /malformed/);
    openingFails(() => sealer.openSecret(`${sealed}.extra`), /malformed/);
    openingFails(() => sealer.openSecret(partsOf(sealed).slice(0, 3).join('.')), /malformed/);
  });

  test('a non-canonical base64url body (spare bits set) is refused, not read as the same bytes', () => {
    const sealer = createSealer(keyA);
    // 11 bytes of plaintext + 16 of tag = 27 bytes: 36 characters, no spare bits; 10 + 16 = 26 bytes has 2.
    const sealed = sealer.sealSecret('0123456789');
    const body = partsOf(sealed)[3];
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(body[body.length - 1]!);
    const sameBytes = body.slice(0, -1) + alphabet[last ^ 1];
    expect(Buffer.from(sameBytes, 'base64url').equals(Buffer.from(body, 'base64url'))).toBe(true);
    openingFails(() => sealer.openSecret(withPart(sealed, 3, sameBytes)), /malformed/);
  });

  test('an altered key id is refused: unknown, or another key held (the header is authenticated)', () => {
    const rotated = createSealer(keyB, keyA);
    const sealed = rotated.sealSecret(secret);
    const [, keyId] = partsOf(sealed);
    openingFails(() => rotated.openSecret(withPart(sealed, 1, flipCharAt(keyId, 0))), /key this server does not have/);
    const previousKeyId = partsOf(createSealer(keyA).sealSecret(secret))[1];
    openingFails(() => rotated.openSecret(withPart(sealed, 1, previousKeyId)), /altered/);
  });

  test('a secret sealed under another key does not open', () => {
    const sealed = createSealer(keyA).sealSecret(secret);
    openingFails(() => createSealer(keyB).openSecret(sealed), /key this server does not have/);
  });

  test('an unknown format version is refused before anything else is read', () => {
    const sealer = createSealer(keyA);
    const sealed = sealer.sealSecret(secret);
    for (const version of ['v2', 'v0', 'V1', '1', '', 'v1 ']) {
      openingFails(() => sealer.openSecret(withPart(sealed, 0, version)), /unknown format version/);
    }
    for (const garbage of ['', 'garbage', '....', 'v2.only']) openingFails(() => sealer.openSecret(garbage), /unknown format version/);
  });

  test('rotation: the previous key still opens, new seals use the current key, resealSecret moves a secret over', () => {
    const old = createSealer(keyA);
    const sealedBefore = old.sealSecret(secret);
    const rotated = createSealer(keyB, keyA);
    const current = createSealer(keyB);
    expect(rotated.openSecret(sealedBefore)).toBe(secret);
    openingFails(() => current.openSecret(sealedBefore), /key this server does not have/);

    const sealedAfter = rotated.sealSecret(secret);
    expect(partsOf(sealedAfter)[1]).toBe(partsOf(current.sealSecret(secret))[1]);
    expect(current.openSecret(sealedAfter)).toBe(secret);
    openingFails(() => old.openSecret(sealedAfter), /key this server does not have/);

    const resealed = rotated.resealSecret(sealedBefore);
    expect(partsOf(resealed)[1]).toBe(partsOf(sealedAfter)[1]);
    expect(current.openSecret(resealed)).toBe(secret);
    expect(rotated.resealSecret(resealed)).toBe(resealed);
    openingFails(() => rotated.resealSecret(withPart(sealedBefore, 3, flipCharAt(partsOf(sealedBefore)[3], 0))), /altered/);
  });

  test('the keyring seals with SECRET_KEY and opens what SECRET_KEY_PREVIOUS sealed', () => {
    const before = createKeyring({ secretKey: keyA });
    const after = createKeyring({ secretKey: keyB, previousSecretKey: keyA });
    const sealed = before.sealSecret(secret);
    expect(after.openSecret(sealed)).toBe(secret);
    expect(createSealer(keyB).openSecret(after.sealSecret(secret))).toBe(secret);
    expect(JSON.stringify(after)).not.toContain(keyA);
    expect(Bun.inspect(after)).not.toContain(keyB);
  });
});
