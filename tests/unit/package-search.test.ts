import { expect, test } from 'bun:test';
import { foldForSearch, matchesPackageSearch, searchWords } from '../../src/shared/packages/package-search.ts';

/** The one search of the packages screen and the add-existing dialog (src/shared/packages/package-search.ts). */
const linux = { title: 'Linux x86 64-bit', tags: ['os:linux', 'arch:x86', 'bits:64'], entrypoint: ['bin', 'run.sh'], versions: [{ title: '1.2.0' }, { title: 'Été' }] };

test('every word must be found in the title, a tag or its value, the start file, a version or the extra words', () => {
  expect(matchesPackageSearch(linux, '')).toBe(true);
  expect(matchesPackageSearch(linux, '   ')).toBe(true);
  for (const query of ['linux', 'os:linux', 'x86', 'bin/run.sh', 'run.sh', '1.2.0', 'linux 1.2', '64-bit']) expect(matchesPackageSearch(linux, query)).toBe(true);
  for (const query of ['windows', 'linux windows', 'os:web', '1.3', 'bin\\run.sh']) expect(matchesPackageSearch(linux, query)).toBe(false);
  expect(matchesPackageSearch(linux, 'Linüks')).toBe(false);
  expect(matchesPackageSearch(linux, 'Unix-like', ['Unix-like'])).toBe(true);
  expect(matchesPackageSearch({ ...linux, entrypoint: null, versions: [] }, 'run.sh')).toBe(false);
});

test('case, accents and width are ignored', () => {
  expect(matchesPackageSearch(linux, 'LINUX')).toBe(true);
  expect(matchesPackageSearch(linux, 'ｌｉｎｕｘ')).toBe(true);
  expect(matchesPackageSearch(linux, 'ete')).toBe(true);
  expect(matchesPackageSearch(linux, 'ÉTÉ')).toBe(true);
  expect(foldForSearch('Ärger')).toBe('arger');
  expect(searchWords('  Linux\t 64 ')).toEqual(['linux', '64']);
});
