import { describe, expect, test } from 'bun:test';
import { chooseBase } from '../../src/client/dialogs/new-package/base-choice.ts';
import { draftFingerprint } from '../../src/client/upload/resume-store.ts';
import { sameTags } from '../../src/shared/packages/same-tags.ts';

describe('the base of a new package: the current package with the same tags (as the CLI push picks it)', () => {
  test('sameTags compares sets: order does not matter, every tag does', () => {
    expect(sameTags(['os:linux', 'arch:x86'], ['arch:x86', 'os:linux'])).toBe(true);
    expect(sameTags([], [])).toBe(true);
    expect(sameTags(['os:linux'], ['os:linux', 'arch:x86'])).toBe(false);
    expect(sameTags(['os:linux', 'arch:x86'], ['os:linux', 'arch:arm'])).toBe(false);
  });

  const linux = { id: 'l', title: 'Linux', tags: ['os:linux', 'bits:64'] };
  const windows = { id: 'w', title: 'Windows', tags: ['os:windows'] };

  test('chooseBase: the candidate whose tags equal the selection, else none', () => {
    expect(chooseBase([linux, windows], ['os:windows'])).toBe(windows);
    expect(chooseBase([linux, windows], ['bits:64', 'os:linux'])).toBe(linux);
    expect(chooseBase([linux, windows], ['os:linux'])).toBeNull();
    expect(chooseBase([linux, windows], ['os:linux', 'os:windows'])).toBeNull();
    expect(chooseBase([], [])).toBeNull();
  });

  test('the resume key names the base: a resumed upload never continues a record made for another base', () => {
    const transfer = { tags: ['os:windows'], title: null, entrypoint: null, entries: [] };
    const key = (basePackage: string | null) => draftFingerprint('p', { ...transfer, basePackage });
    expect(key('w')).toBe(key('w'));
    expect(key('w')).not.toBe(key('l'));
    expect(key('w')).not.toBe(key(null));
  });
});
