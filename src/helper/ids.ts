const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A new record id: 16 random lowercase letters and digits (≈ 82 bits), safe as a folder name everywhere. */
export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let id = '';
  for (const byte of bytes) id += alphabet[byte % alphabet.length];
  return id;
}
