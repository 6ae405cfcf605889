import { expect, test } from 'bun:test';
import { nextVersionTitle } from '../../src/shared/schemas/versions.ts';

test.each([
  [undefined, '1.0.0'],
  ['', '1.0.0'],
  ['1.0.0', '1.0.1'],
  ['1.0.9', '1.0.10'],
  ['v2', 'v3'],
  ['1.2.3-beta', '1.2.4-beta'],
  ['build 007', 'build 008'],
  ['release', 'release.1'],
  ['99999999999999999999', '100000000000000000000'],
])('after %p comes %p', (base, next) => {
  expect(nextVersionTitle(base)).toBe(next);
});
