/**
 * zlib's crc32_combine: the CRC-32 of A followed by B from crc32(A), crc32(B) and B's length, without
 * the bytes. Appending n zero bits multiplies A's CRC by x^n modulo the CRC polynomial (GF(2)); x^n comes
 * from the table of x^(2^k), so a combine costs about log2(n) multiplications of 32 steps (zlib 1.2.12+,
 * crc32.c: multmodp, x2nmodp). Bit order is reflected, as in the CRC itself.
 */
const POLY = 0xedb88320;

/** a(x) · b(x) mod p(x), reflected (the top bit is x^0). */
function multModP(a: number, b: number): number {
  let product = 0;
  for (let m = 0x80000000; m !== 0; m >>>= 1) {
    if (a & m) {
      product ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) mod p(x) for k = 0..31 (x^1 is 1 << 30 in reflected order). */
const powersOfTwo = (() => {
  const table = new Uint32Array(32);
  let p = 0x40000000;
  for (let k = 0; k < 32; k++) {
    table[k] = p;
    p = multModP(p, p);
  }
  return table;
})();

/** x^(n · 2^k) mod p(x); n may pass 2^32 (files over 4 GiB). */
function xPowerModP(n: number, k: number): number {
  let p = 0x80000000; // x^0
  while (n > 0) {
    if (n % 2 === 1) p = multModP(powersOfTwo[k & 31]!, p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/** crc32(A ‖ B) given crc32(A), crc32(B) and the byte length of B. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  // 2^3 bits per byte.
  return (multModP(xPowerModP(lengthB, 3), crcA >>> 0) ^ (crcB >>> 0)) >>> 0;
}
