const utf8Encoder = new TextEncoder();
// ignoreBOM keeps a leading U+FEFF: stripping it would make two distinct names decode alike.
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function encodeUtf8(text: string): Uint8Array {
  return utf8Encoder.encode(text);
}

/** Bytes of the text's UTF-8 form, without encoding it (a lone surrogate counts as U+FFFD: 3 bytes). */
export function utf8Length(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) length += 1;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      length += 2; // a pair: 2 units, 4 bytes
      i++;
    } else length += 2;
  }
  return length;
}

/** Throws TypeError on invalid UTF-8; callers turn that into their own error. */
export function decodeUtf8(bytes: Uint8Array): string {
  return utf8Decoder.decode(bytes);
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const diff = a[i]! - b[i]!;
    if (diff !== 0) return diff;
  }
  return a.length - b.length;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** UTF-8 byte order equals code point order, which differs from JS (UTF-16) order above U+FFFF. */
export function compareNames(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(j)!;
    if (ca !== cb) return ca - cb;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  return (a.length - i) - (b.length - j);
}

const hexCodes = new TextEncoder().encode('0123456789abcdef');
const asciiDecoder = new TextDecoder();

/**
 * Lowercase hex. Built as one flat string: joining digit pairs with `+=` makes JavaScriptCore keep a
 * rope of ~30 string nodes per hash (≈ 1 KB), and a 2 GiB package's ZIP layout holds 40,000 of
 * them (45 MB of heap). Uint8Array.prototype.toHex (Bun, recent browsers) or one ASCII decode.
 */
export function toHex(bytes: Uint8Array): string {
  const native = (bytes as Uint8Array & { toHex?: () => string }).toHex;
  if (typeof native === 'function') return native.call(bytes);
  const out = new Uint8Array(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    out[2 * i] = hexCodes[bytes[i]! >> 4]!;
    out[2 * i + 1] = hexCodes[bytes[i]! & 15]!;
  }
  return asciiDecoder.decode(out);
}

export function fromHex(hex: string): Uint8Array {
  const clean = hex.replace(/\s+/g, '');
  const out = new Uint8Array(clean.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(clean.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function concatBytes(parts: readonly Uint8Array[], totalLength?: number): Uint8Array {
  const length = totalLength ?? parts.reduce((sum, part) => sum + part.length, 0);
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
