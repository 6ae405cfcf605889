import { describe, expect, test } from 'bun:test';
import { packageFileExtensions } from '../../src/shared/packages/file-name.ts';
import { packageDownloadName, packageTitle } from '../../src/shared/packages/package-name.ts';

/** The one naming rule of a package: pages, the upload list, the CLI and the download file names. */
describe('packageTitle', () => {
  test.each([
    [{ title: null, tags: ['os:linux', 'arch:x86', 'bits:64'] }, 'Linux x86 64-bit'],
    [{ title: undefined, tags: ['bits:64', 'os:linux', 'arch:x86'] }, 'Linux x86 64-bit'],
    [{ tags: ['os:web'] }, 'Web'],
    [{ title: null, tags: [] }, 'Package'],
    [{ title: null, tags: ['unknown:tag'] }, 'Package'],
    [{ title: 'Steam Deck build', tags: ['os:linux'] }, 'Steam Deck build'],
    [{ title: '  Demo  ', tags: ['os:web'] }, 'Demo'],
    [{ title: '   ', tags: ['os:web'] }, 'Web'],
    [{ title: '', tags: ['os:windows', 'packaging:installer'] }, 'Windows Installer'],
  ])('%p is named %p', (pkg, name) => {
    expect(packageTitle(pkg)).toBe(name);
  });

  test('a draft being uploaded gets the name the stored package will have, never its raw tags', () => {
    const draft = { title: undefined, tags: ['os:linux', 'arch:x86', 'bits:64'] };
    expect(packageTitle(draft)).toBe(packageTitle({ title: null, tags: draft.tags }));
    expect(packageTitle(draft)).not.toContain('os:');
  });
});

describe('packageDownloadName', () => {
  test("spec §7: '{project title} {package title}.zip', the same stem for every download kind", () => {
    const pkg = { title: null, tags: ['os:linux', 'arch:x86', 'bits:64'] };
    expect(packageDownloadName('Star Miner', pkg)).toBe('Star Miner Linux x86 64-bit.zip');
    expect(packageDownloadName('Star Miner', pkg, 'zip')).toBe('Star Miner Linux x86 64-bit.zip');
    expect(packageDownloadName('Star Miner', pkg, 'archive')).toBe('Star Miner Linux x86 64-bit.crt');
    expect(packageDownloadName('Star Miner', pkg, 'index')).toBe('Star Miner Linux x86 64-bit.crt-index');
    expect(packageDownloadName('Star Miner', pkg, 'torrent')).toBe('Star Miner Linux x86 64-bit.torrent');
    expect(packageDownloadName('Star Miner', { title: 'Demo', tags: ['os:web'] })).toBe('Star Miner Demo.zip');
  });

  test('archives are .crt, as the command-line client writes them', () => {
    expect(packageFileExtensions.archive).toBe('.crt');
  });

  test('a long name keeps one stem across kinds and stays within a file system name', () => {
    const pkg = { title: 'ü'.repeat(200), tags: [] };
    const stems = (['zip', 'archive', 'index', 'torrent'] as const).map((kind) => {
      const name = packageDownloadName('Game', pkg, kind);
      expect(new TextEncoder().encode(name).length).toBeLessThanOrEqual(250);
      return name.slice(0, -packageFileExtensions[kind].length);
    });
    expect(new Set(stems).size).toBe(1);
  });
});
