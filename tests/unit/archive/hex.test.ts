import { expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { fromHex, toHex } from '../../../src/shared/archive/index.ts';

/** A view whose prototype has no toHex: what older browsers run. */
function withoutNativeHex(bytes: Uint8Array): Uint8Array {
  Object.defineProperty(bytes, 'toHex', { value: undefined });
  return bytes;
}

test('toHex is lowercase hex, native or not, for every byte value', () => {
  const every = Uint8Array.from({ length: 256 }, (_, i) => i);
  const expected = Buffer.from(every).toString('hex');
  expect(toHex(every)).toBe(expected);
  expect(toHex(withoutNativeHex(every.slice()))).toBe(expected);
  expect(toHex(new Uint8Array(0))).toBe('');
  expect(toHex(withoutNativeHex(new Uint8Array(0)))).toBe('');
});

test('toHex of a view covers only the view, and fromHex reverses it', () => {
  const whole = new Uint8Array(randomBytes(100));
  const view = whole.subarray(10, 42);
  const expected = Buffer.from(view).toString('hex');
  expect(toHex(view)).toBe(expected);
  expect(toHex(withoutNativeHex(whole.subarray(10, 42)))).toBe(expected);
  expect([...fromHex(toHex(view))]).toEqual([...view]);
});
