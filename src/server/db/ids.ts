const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Opaque random id (~103 bits); never sequential so ids reveal nothing about counts or order. */
export function newId(length = 20): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let id = '';
  for (const byte of bytes) id += alphabet[byte % 36];
  return id;
}
