import { describe, expect, test } from 'bun:test';
import { z } from 'zod';
import {
  allPackageTags,
  compareTags,
  describeTagProblem,
  isPackageTag,
  packageTagsSchema,
  parseTag,
  sortTags,
  tagGroupNames,
  tagGroups,
  validateTags,
} from '../../src/shared/packages/tags.ts';
import { defaultPackageTitle, describeTags, packageFileName, sanitizeFileName } from '../../src/shared/packages/default-title.ts';

describe('tag table', () => {
  test('holds exactly the groups and values of spec §3, in order', () => {
    expect(tagGroupNames).toEqual(['os', 'arch', 'bits', 'packaging', 'component', 'runtime', 'distro']);
    expect(tagGroups.os).toEqual(['windows', 'linux', 'macos', 'android', 'ios', 'web']);
    expect(tagGroups.arch).toEqual(['x86', 'arm']);
    expect(tagGroups.bits).toEqual(['32', '64']);
    expect(tagGroups.packaging).toEqual(['installer', 'deb', 'rpm', 'flatpak']);
    expect(tagGroups.component).toEqual(['client', 'server']);
    expect(tagGroups.runtime).toEqual(['nodejs', 'java']);
    expect(tagGroups.distro).toEqual(['ubuntu', 'fedora', 'arch', 'nixos']);
    expect(allPackageTags).toHaveLength(22);
    expect(allPackageTags[0]).toBe('os:windows');
    expect(allPackageTags.at(-1)).toBe('distro:nixos');
  });
});

describe('parseTag', () => {
  test('splits a valid tag', () => {
    expect(parseTag('os:linux')).toEqual({ ok: true, tag: 'os:linux', group: 'os', value: 'linux' });
    expect(parseTag('bits:64')).toEqual({ ok: true, tag: 'bits:64', group: 'bits', value: '64' });
    expect(parseTag('distro:arch')).toEqual({ ok: true, tag: 'distro:arch', group: 'distro', value: 'arch' });
  });

  test.each([
    ['linux', 'unknown_group'],
    ['', 'unknown_group'],
    [':linux', 'unknown_group'],
    ['platform:linux', 'unknown_group'],
    ['OS:linux', 'unknown_group'],
    [' os:linux', 'unknown_group'],
    ['constructor:x', 'unknown_group'],
    ['__proto__:x', 'unknown_group'],
    ['toString:x', 'unknown_group'],
    ['os', 'unknown_value'],
    ['os:', 'unknown_value'],
    ['os:Linux', 'unknown_value'],
    ['os:linux ', 'unknown_value'],
    ['os:linux:x', 'unknown_value'],
    ['os:plan9', 'unknown_value'],
    ['arch:x86_64', 'unknown_value'],
    ['bits:16', 'unknown_value'],
    ['arch:ubuntu', 'unknown_value'],
  ])('%p is %p', (text, reason) => {
    expect(parseTag(text)).toEqual({ ok: false, reason: reason as 'unknown_group' | 'unknown_value' });
    expect(isPackageTag(text)).toBe(false);
  });

  test('every tag of the table parses', () => {
    for (const tag of allPackageTags) expect(isPackageTag(tag)).toBe(true);
  });
});

describe('validateTags', () => {
  test('accepts no tags', () => {
    expect(validateTags([])).toEqual({ ok: true, tags: [] });
  });

  test('returns tags in group order then value order', () => {
    const result = validateTags(['bits:64', 'distro:nixos', 'arch:x86', 'os:web', 'os:linux', 'runtime:java', 'distro:ubuntu']);
    expect(result).toEqual({ ok: true, tags: ['os:linux', 'os:web', 'arch:x86', 'bits:64', 'runtime:java', 'distro:ubuntu', 'distro:nixos'] });
  });

  test('several values of one group are allowed (universal builds)', () => {
    expect(validateTags(['os:macos', 'os:windows', 'os:linux', 'arch:arm', 'arch:x86', 'bits:32', 'bits:64'])).toEqual({
      ok: true,
      tags: ['os:windows', 'os:linux', 'os:macos', 'arch:x86', 'arch:arm', 'bits:32', 'bits:64'],
    });
  });

  test('all 22 tags together are valid', () => {
    const reversed = [...allPackageTags].reverse();
    expect(validateTags(reversed)).toEqual({ ok: true, tags: [...allPackageTags] });
  });

  test('distro without os:linux is refused, naming the first distro tag', () => {
    expect(validateTags(['os:windows', 'distro:fedora', 'distro:ubuntu'])).toEqual({
      ok: false,
      problem: { tag: 'distro:fedora', reason: 'distro_without_linux' },
    });
    expect(validateTags(['distro:ubuntu'])).toEqual({ ok: false, problem: { tag: 'distro:ubuntu', reason: 'distro_without_linux' } });
    expect(validateTags(['distro:ubuntu', 'os:linux']).ok).toBe(true);
  });

  test('a repeated tag is refused', () => {
    expect(validateTags(['os:linux', 'arch:x86', 'os:linux'])).toEqual({ ok: false, problem: { tag: 'os:linux', reason: 'duplicate' } });
  });

  test('the first problem in input order wins; distro is checked after every tag parsed', () => {
    expect(validateTags(['distro:ubuntu', 'os:bsd', 'nope:x'])).toEqual({ ok: false, problem: { tag: 'os:bsd', reason: 'unknown_value' } });
    expect(validateTags(['os:linux', 'os:linux', 'nope:x'])).toEqual({ ok: false, problem: { tag: 'os:linux', reason: 'duplicate' } });
    expect(validateTags(['gpu:nvidia', 'os:linux'])).toEqual({ ok: false, problem: { tag: 'gpu:nvidia', reason: 'unknown_group' } });
  });

  test('does not change its input', () => {
    const input = ['bits:64', 'os:linux'];
    validateTags(input);
    expect(input).toEqual(['bits:64', 'os:linux']);
  });
});

describe('sortTags and compareTags', () => {
  test('deduplicate and order, unknown strings last', () => {
    expect(sortTags(['zz:top', 'bits:32', 'os:ios', 'bits:32', 'aa:x', 'os:windows'])).toEqual(['os:windows', 'os:ios', 'bits:32', 'aa:x', 'zz:top']);
    expect(compareTags('os:web', 'arch:x86')).toBeLessThan(0);
    expect(compareTags('distro:ubuntu', 'runtime:java')).toBeGreaterThan(0);
    expect(compareTags('os:linux', 'os:linux')).toBe(0);
  });
});

describe('packageTagsSchema', () => {
  const body = z.object({ tags: packageTagsSchema });

  test('accepts valid tags as given', () => {
    expect(body.parse({ tags: ['bits:64', 'os:linux'] })).toEqual({ tags: ['bits:64', 'os:linux'] });
  });

  test.each([
    [['os:linux', 'os:linux'], "Invalid `tags`: 'os:linux' (the tag is listed twice)"],
    [['distro:nixos'], "Invalid `tags`: 'distro:nixos' (a distro tag needs os:linux)"],
    [['os:amiga'], "Invalid `tags`: 'os:amiga' (unknown tag value)"],
    [['amiga'], "Invalid `tags`: 'amiga' (unknown tag group)"],
  ])('refuses %p under the tags path', (tags, message) => {
    const result = body.safeParse({ tags });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['tags']);
    expect(result.error?.issues[0]?.message).toBe(message);
  });

  test('refuses more than 20 tags, non-strings and long strings', () => {
    const many = [...allPackageTags].slice(0, 21);
    expect(body.safeParse({ tags: many }).success).toBe(false);
    expect(body.safeParse({ tags: [...allPackageTags].slice(0, 20) }).success).toBe(true);
    expect(body.safeParse({ tags: [1] }).success).toBe(false);
    expect(body.safeParse({ tags: 'os:linux' }).success).toBe(false);
    expect(body.safeParse({ tags: ['x'.repeat(65)] }).success).toBe(false);
  });

  test('stays representable as JSON Schema (OpenAPI)', () => {
    expect(z.toJSONSchema(body)).toMatchObject({ properties: { tags: { type: 'array', maxItems: 20 } } });
  });

  test('describeTagProblem starts with the catalogue wording', () => {
    expect(describeTagProblem({ tag: 'x', reason: 'unknown_group' })).toStartWith('Invalid `tags`');
  });
});

describe('defaultPackageTitle', () => {
  test.each([
    [[], 'Package'],
    [['os:web'], 'Web'],
    [['os:linux', 'arch:x86', 'bits:64'], 'Linux x86 64-bit'],
    [['bits:64', 'arch:x86', 'os:linux'], 'Linux x86 64-bit'],
    [['os:windows', 'packaging:installer'], 'Windows Installer'],
    [['os:macos', 'arch:arm', 'arch:x86'], 'macOS x86/ARM'],
    [['os:linux', 'distro:ubuntu', 'distro:arch', 'packaging:deb'], 'Linux (Ubuntu/Arch) DEB'],
    [['os:windows', 'os:linux', 'os:macos', 'runtime:java'], 'Windows/Linux/macOS Java'],
    [['runtime:nodejs', 'component:server'], 'Node.js Server'],
    [['os:ios', 'os:android', 'component:client'], 'Android/iOS Client'],
    [['bits:32', 'bits:64'], '32-bit/64-bit'],
    [['nonsense:tag'], 'Package'],
  ])('%p gives %p', (tags, title) => {
    expect(defaultPackageTitle(tags)).toBe(title);
  });

  test('is cut at a whole word within the limit', () => {
    const everything = defaultPackageTitle([...allPackageTags], 1000);
    expect(everything).toBe('Windows/Linux (Ubuntu/Fedora/Arch/NixOS)/macOS/Android/iOS/Web x86/ARM 32-bit/64-bit Node.js/Java Installer/DEB/RPM/Flatpak Client/Server');
    const cut = defaultPackageTitle([...allPackageTags]);
    expect(cut.length).toBeLessThanOrEqual(100);
    expect(everything.startsWith(cut)).toBe(true);
    expect(cut.endsWith(' ')).toBe(false);
    expect(defaultPackageTitle(['os:linux', 'arch:x86', 'bits:64'], 12)).toBe('Linux x86');
    expect(defaultPackageTitle(['os:linux', 'arch:x86', 'bits:64'], 3)).toBe('Lin');
  });

  test('describeTags is empty without known tags', () => {
    expect(describeTags([])).toBe('');
    expect(describeTags(['os:web', 'os:web'])).toBe('Web');
  });
});

describe('packageFileName', () => {
  test.each([
    ['My Game', 'Linux x86 64-bit', 'My Game Linux x86 64-bit.zip'],
    ['  Space   Game ', ' Web ', 'Space Game Web.zip'],
    ['AC/DC: Live?', 'Win*dows <1|2>', 'AC_DC_ Live_ Win_dows _1_2_.zip'],
    ['Back\\slash "quoted"', 'x', 'Back_slash _quoted_ x.zip'],
    ['.hidden', 'pkg', 'hidden pkg.zip'],
    ['..', '..', 'package.zip'],
    ['', '', 'package.zip'],
    ['Game\u0000\u0007\n', 'tab\there', 'Game__ tab_here.zip'],
    ['evil\u202egnp', 'exe', 'evilgnp exe.zip'],
    ['ゲーム', 'ウェブ', 'ゲーム ウェブ.zip'],
    ['Cafe\u0301', 'Web', 'Café Web.zip'],
  ])('%p + %p gives %p', (project, pkg, name) => {
    expect(packageFileName(project, pkg)).toBe(name);
  });

  test('avoids Windows reserved names', () => {
    expect(sanitizeFileName('CON')).toBe('_CON');
    expect(sanitizeFileName('nul.txt')).toBe('_nul.txt');
    expect(sanitizeFileName('console')).toBe('console');
  });

  test('drops trailing dots and spaces (Windows)', () => {
    expect(sanitizeFileName('Game... ')).toBe('Game');
  });

  test('stays under 255 bytes of UTF-8 without splitting a character', () => {
    const name = packageFileName('é'.repeat(100), '😀'.repeat(100));
    expect(name.endsWith('.zip')).toBe(true);
    const bytes = new TextEncoder().encode(name).length;
    expect(bytes).toBeLessThanOrEqual(240);
    expect(bytes).toBeGreaterThan(236);
    expect(name).not.toContain('\ufffd');
    expect(new TextDecoder('utf-8', { fatal: true }).decode(new TextEncoder().encode(name))).toBe(name);
    expect(name.includes('😀')).toBe(true);
    expect(/^[é]+ 😀+\.zip$/u.test(name)).toBe(true);
  });
});
