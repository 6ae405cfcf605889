import { describe, expect, test } from 'bun:test';
import { addDirectory, addFile, addSymlink, createTree, findEntry, isArchiveError, setEntrypoint } from '../../src/shared/archive/index.ts';
import { bytesSource } from '../../src/shared/archive/sources.ts';
import type { ArchiveTree } from '../../src/shared/archive/types.ts';
import { applyFix, checkPackage, entrypointCandidates, preferredEntrypoint, type PackageWarning } from '../../src/shared/packages/checks.ts';
import { fileExtension } from '../../src/shared/packages/extensions.ts';
import { describeFix, describeWarning } from '../../src/shared/packages/warning-text.ts';

const content = bytesSource(new Uint8Array([1, 2, 3]));

/** Paths ending in '/' are empty folders; '*' suffix marks a file executable. */
function makeTree(paths: string[], entrypoint?: string): ArchiveTree {
  const tree = createTree();
  for (const path of paths) {
    if (path.endsWith('/')) addDirectory(tree, path.slice(0, -1));
    else if (path.endsWith('*')) addFile(tree, path.slice(0, -1), content, { mode: 1 });
    else addFile(tree, path, content);
  }
  if (entrypoint !== undefined) setEntrypoint(tree, entrypoint);
  return tree;
}

const codes = (warnings: PackageWarning[]) => warnings.map((warning) => warning.code);

describe('no files', () => {
  test('an empty tree gives only no_files', () => {
    expect(checkPackage({ tree: createTree(), tags: [] })).toEqual([{ code: 'no_files' }]);
  });

  test('empty folders and symlinks are not files', () => {
    const tree = makeTree(['a/', 'b/c/']);
    addSymlink(tree, 'link', 'a');
    expect(checkPackage({ tree, tags: ['os:linux'] })).toEqual([{ code: 'no_files' }]);
  });

  test('a file deep down is enough', () => {
    const warnings = checkPackage({ tree: makeTree(['a/b/c/file.bin']), tags: [] });
    expect(codes(warnings)).not.toContain('no_files');
  });
});

describe('entrypoint not set', () => {
  test('warns with a set_entrypoint fix listing likely files, shallowest first, a web build\'s index.html first at a depth', () => {
    const tree = makeTree(['Game.exe', 'data/tool.exe', 'readme.txt', 'lib/run*', 'a/b/deep.sh', 'pack.zip', 'notes.json*', 'index.html']);
    const warnings = checkPackage({ tree, tags: [] });
    expect(warnings).toEqual([
      {
        code: 'entrypoint_not_set',
        fix: { kind: 'set_entrypoint', candidates: [['index.html'], ['Game.exe'], ['data', 'tool.exe'], ['lib', 'run'], ['a', 'b', 'deep.sh']] },
      },
    ]);
  });

  test('an empty entrypoint list counts as not set', () => {
    expect(codes(checkPackage({ tree: makeTree(['x.bin']), tags: [], entrypoint: [] }))).toEqual(['entrypoint_not_set']);
  });

  test('candidates are capped', () => {
    const tree = makeTree(Array.from({ length: 15 }, (_, i) => `g${String(i).padStart(2, '0')}.exe`));
    expect(entrypointCandidates(tree.root)).toHaveLength(10);
    expect(entrypointCandidates(tree.root, { limit: 3 })).toEqual([['g00.exe'], ['g01.exe'], ['g02.exe']]);
  });

  test('the set_entrypoint fix sets the path the user picked', () => {
    const tree = makeTree(['Game.exe', 'other.exe']);
    const [warning] = checkPackage({ tree, tags: ['os:windows'] });
    if (warning?.fix?.kind !== 'set_entrypoint') throw new Error('expected set_entrypoint');
    expect(() => applyFix(tree, [], warning.fix!)).toThrow('choose the entrypoint file first');
    const result = applyFix(tree, ['os:windows'], { ...warning.fix, path: ['other.exe'] });
    expect(result.tree.entrypoint).toEqual(['other.exe']);
    expect(result.tags).toEqual(['os:windows']);
    expect(checkPackage({ tree, tags: ['os:windows'] })).toEqual([]);
  });
});

describe('the start file offered first (issue 13: a web build came out tagged runtime:nodejs)', () => {
  test('a web build\'s index.html comes before its scripts, whatever their names or executable bits', () => {
    expect(preferredEntrypoint(makeTree(['game.js', 'index.html']).root)).toEqual(['index.html']);
    expect(preferredEntrypoint(makeTree(['app.mjs*', 'game.wasm*', 'Index.HTM']).root)).toEqual(['Index.HTM']);
    expect(entrypointCandidates(makeTree(['a.js', 'b.html', 'index.html']).root)).toEqual([['index.html'], ['b.html'], ['a.js']]);
  });

  test('otherwise a program, then a launcher script, then a page, then a script', () => {
    expect(entrypointCandidates(makeTree(['z.js', 'y.html', 'start.sh', 'Game*']).root)).toEqual([['Game'], ['start.sh'], ['y.html'], ['z.js']]);
    expect(preferredEntrypoint(makeTree(['server.js']).root)).toEqual(['server.js']);
    expect(preferredEntrypoint(makeTree(['readme.txt']).root)).toBeUndefined();
  });

  test('files that suit the selected tags come first', () => {
    const tree = makeTree(['index.html', 'Game.exe', 'run.sh', 'docs/manual.html']);
    expect(preferredEntrypoint(tree.root, ['os:windows'])).toEqual(['Game.exe']);
    expect(preferredEntrypoint(tree.root, ['os:linux'])).toEqual(['run.sh']);
    expect(preferredEntrypoint(makeTree(['Game.exe', 'web/index.html']).root, ['os:web'])).toEqual(['web', 'index.html']);
  });

  test('the one-click chain on a folder with index.html and game.js ends tagged os:web only', () => {
    const tree = makeTree(['build/game.js', 'build/index.html']);
    let tags: string[] = [];
    for (let step = 0; step < 5; step++) {
      const warning = checkPackage({ tree, tags }).find((item) => item.fix);
      if (!warning) break;
      const fix = warning.fix!.kind === 'set_entrypoint' ? { ...warning.fix!, path: warning.fix!.candidates[0] } : warning.fix!;
      tags = applyFix(tree, tags, fix).tags;
    }
    expect(tree.entrypoint).toEqual(['index.html']);
    expect(tags).toEqual(['os:web']);
    expect(checkPackage({ tree, tags })).toEqual([]);
  });

  test('a web build\'s script as start file: no runtime:nodejs, the pages are offered instead', () => {
    const beside = makeTree(['game.js', 'index.html', 'about.html'], 'game.js');
    expect(checkPackage({ tree: beside, tags: [] })).toEqual([
      { code: 'web_needs_page', path: ['game.js'], extension: 'js', fix: { kind: 'set_entrypoint', candidates: [['index.html'], ['about.html']] } },
    ]);
    expect(codes(checkPackage({ tree: makeTree(['main.js', 'page.html'], 'main.js'), tags: ['os:web', 'runtime:nodejs'] }))).toEqual(['web_needs_page']);
    expect(codes(checkPackage({ tree: makeTree(['game.exe', 'index.html'], 'game.exe'), tags: ['os:web', 'os:windows'] }))).toEqual(['web_needs_page']);
    // A Node.js game alone still gets its tag suggested.
    expect(codes(checkPackage({ tree: makeTree(['server.js', 'public/index.html'], 'server.js'), tags: [] }))).toEqual(['extension_suggests_tag']);
  });
});

describe('entrypoint missing', () => {
  test('an entrypoint pointing to nothing gives entrypoint_missing with an unset fix', () => {
    const tree = makeTree(['game.exe']);
    const warnings = checkPackage({ tree, tags: ['os:windows'], entrypoint: ['gone.exe'] });
    expect(warnings).toEqual([{ code: 'entrypoint_missing', path: ['gone.exe'], fix: { kind: 'unset_entrypoint' } }]);
  });

  test('a folder, a path through a file and a malformed path are missing too', () => {
    const tree = makeTree(['bin/game*', 'top.sh*']);
    for (const entrypoint of [['bin'], ['top.sh', 'x'], ['..', 'etc'], ['']]) {
      expect(codes(checkPackage({ tree, tags: ['os:linux'], entrypoint }))).toEqual(['entrypoint_missing']);
    }
  });

  test('the unset fix removes the entrypoint, then entrypoint_not_set shows', () => {
    const tree = makeTree(['game.exe'], 'game.exe');
    tree.entrypoint = ['gone.exe'];
    const [warning] = checkPackage({ tree, tags: [] });
    expect(warning?.code).toBe('entrypoint_missing');
    const result = applyFix(tree, [], warning!.fix!);
    expect(result.tree.entrypoint).toBeUndefined();
    expect(codes(checkPackage({ tree, tags: [] }))).toEqual(['entrypoint_not_set']);
  });

  test('an explicit entrypoint wins over the tree one, null meaning not set', () => {
    const tree = makeTree(['game.exe'], 'game.exe');
    expect(codes(checkPackage({ tree, tags: ['os:windows'], entrypoint: null }))).toEqual(['entrypoint_not_set']);
    expect(checkPackage({ tree, tags: ['os:windows'] })).toEqual([]);
    expect(checkPackage({ tree: { root: tree.root }, tags: ['os:windows'], entrypoint: ['game.exe'] })).toEqual([]);
  });
});

describe('probably wrong extension', () => {
  test.each(['css', 'dat', 'dll', 'json', 'so', 'toml', 'txt', 'yaml', 'yml', 'JSON'])('.%s', (extension) => {
    const name = `entry.${extension}`;
    const tree = makeTree([name, 'game.exe'], name);
    expect(checkPackage({ tree, tags: [] })).toEqual([
      {
        code: 'wrong_extension',
        path: [name],
        extension: extension.toLowerCase(),
        fix: { kind: 'set_entrypoint', candidates: [['game.exe']] },
      },
    ]);
  });

  test.each(['bin', 'x86_64', 'pck', ''])('.%s is fine', (extension) => {
    const name = extension === '' ? 'game' : `game.${extension}`;
    expect(checkPackage({ tree: makeTree([name], name), tags: [] })).toEqual([]);
  });
});

describe('archive entrypoint', () => {
  test.each(['7z', 'rar', 'zip', 'tar', 'tar.gz', 'tgz', 'tar.xz', 'txz', 'tar.bz2', 'tbz2', 'tar.zst', 'ZIP', 'TAR.GZ'])('.%s', (extension) => {
    const name = `build.${extension}`;
    const tree = makeTree([name], name);
    expect(checkPackage({ tree, tags: [] })).toEqual([
      { code: 'archive_entrypoint', path: [name], extension: extension.toLowerCase(), fix: { kind: 'set_entrypoint', candidates: [] } },
    ]);
  });
});

describe('extension suggests tag', () => {
  test.each([
    ['index.html', 'html_needs_web', ['os:web']],
    ['Game.HTM', 'html_needs_web', ['os:web']],
    ['game.exe', 'extension_suggests_tag', ['os:windows']],
    ['start.bat', 'extension_suggests_tag', ['os:windows']],
    ['setup.msi', 'extension_suggests_tag', ['os:windows', 'packaging:installer']],
    ['game.deb', 'extension_suggests_tag', ['os:linux', 'packaging:deb']],
    ['game.rpm', 'extension_suggests_tag', ['os:linux', 'packaging:rpm']],
    ['game.flatpak', 'extension_suggests_tag', ['os:linux', 'packaging:flatpak']],
    ['game.jar', 'extension_suggests_tag', ['runtime:java']],
    ['main.js', 'extension_suggests_tag', ['runtime:nodejs']],
    ['run.sh', 'extension_suggests_tag', ['os:linux']],
    ['game.apk', 'extension_suggests_tag', ['os:android']],
  ])('%s → %s %p', (name, code, tags) => {
    const tree = makeTree([`${name}*`], name);
    const warnings = checkPackage({ tree, tags: [] });
    expect(warnings).toEqual([{ code: code as PackageWarning['code'], path: [name], extension: fileExtension(name), tags: tags as never, fix: { kind: 'add_tags', tags: tags as never } }]);
  });

  test('only the missing tags are suggested, none when all are set', () => {
    const tree = makeTree(['game.deb'], 'game.deb');
    expect(checkPackage({ tree, tags: ['os:linux'] })).toMatchObject([{ code: 'extension_suggests_tag', tags: ['packaging:deb'] }]);
    expect(checkPackage({ tree, tags: ['os:linux', 'packaging:deb'] })).toEqual([]);
    expect(checkPackage({ tree: makeTree(['index.html'], 'index.html'), tags: ['os:web'] })).toEqual([]);
  });

  test('a shell script on macOS needs no os:linux', () => {
    const tree = makeTree(['run.sh*'], 'run.sh');
    expect(checkPackage({ tree, tags: ['os:macos'] })).toEqual([]);
  });

  test('the add_tags fix merges and normalises the tags', () => {
    const tree = makeTree(['game.deb'], 'game.deb');
    const [warning] = checkPackage({ tree, tags: ['bits:64', 'arch:x86'] });
    const result = applyFix(tree, ['bits:64', 'arch:x86'], warning!.fix!);
    expect(result.tags).toEqual(['os:linux', 'arch:x86', 'bits:64', 'packaging:deb']);
    expect(result.tree).toBe(tree);
    expect(checkPackage({ tree, tags: result.tags })).toEqual([]);
  });
});

describe('entrypoint not executable', () => {
  test.each([['os:linux'], ['os:macos']])('warns on %s with a set_executable fix that works', (tag) => {
    const tree = makeTree(['bin/game', 'data/level.pck'], 'bin/game');
    const warnings = checkPackage({ tree, tags: [tag] });
    // An extensionless native start file cannot run without the bit: the dialog refuses to create it.
    expect(warnings).toEqual([{ code: 'not_executable', path: ['bin', 'game'], fix: { kind: 'set_executable', path: ['bin', 'game'] }, blocksCreate: true }]);
    applyFix(tree, [tag], warnings[0]!.fix!);
    expect(findEntry(tree, 'bin/game')?.mode).toBe(1);
    expect(checkPackage({ tree, tags: [tag] })).toEqual([]);
  });

  test('no warning when executable, on other systems, or installed by a package manager', () => {
    expect(checkPackage({ tree: makeTree(['game*'], 'game'), tags: ['os:linux'] })).toEqual([]);
    expect(checkPackage({ tree: makeTree(['game'], 'game'), tags: ['os:windows'] })).toEqual([]);
    expect(checkPackage({ tree: makeTree(['game'], 'game'), tags: [] })).toEqual([]);
    for (const packaging of ['deb', 'rpm', 'flatpak']) {
      expect(checkPackage({ tree: makeTree(['game'], 'game'), tags: ['os:linux', `packaging:${packaging}`] })).toEqual([]);
      const name = `game.${packaging}`;
      expect(codes(checkPackage({ tree: makeTree([name], name), tags: ['os:linux'] }))).toEqual(['extension_suggests_tag']);
    }
  });

  test('packaging:installer does not excuse a missing executable bit', () => {
    expect(codes(checkPackage({ tree: makeTree(['setup'], 'setup'), tags: ['os:linux', 'packaging:installer'] }))).toEqual(['not_executable']);
  });

  test('a symlink entrypoint is not flagged (its target carries the bit)', () => {
    const tree = makeTree(['bin/game*']);
    addSymlink(tree, 'start', 'bin/game');
    setEntrypoint(tree, 'start');
    expect(checkPackage({ tree, tags: ['os:linux'] })).toEqual([]);
  });

  test('comes after the tag suggestion of the same file', () => {
    expect(codes(checkPackage({ tree: makeTree(['run.sh'], 'run.sh'), tags: ['os:macos', 'arch:arm'] }))).toEqual(['not_executable']);
    expect(codes(checkPackage({ tree: makeTree(['Game.jar'], 'Game.jar'), tags: ['os:linux'] }))).toEqual(['extension_suggests_tag', 'not_executable']);
  });
});

describe('single root directory', () => {
  test('warns with an explode_root fix that lifts the contents and keeps the entrypoint', () => {
    const tree = makeTree(['MyGame/game.x86_64*', 'MyGame/data/level.pck'], 'MyGame/game.x86_64');
    const warnings = checkPackage({ tree, tags: ['os:linux'] });
    expect(warnings).toEqual([{ code: 'single_root_directory', path: ['MyGame'], fix: { kind: 'explode_root', path: ['MyGame'] } }]);
    const result = applyFix(tree, ['os:linux'], warnings[0]!.fix!);
    expect([...result.tree.root.entries.keys()].sort()).toEqual(['data', 'game.x86_64']);
    expect(result.tree.entrypoint).toEqual(['game.x86_64']);
    expect(result.tree.root.size).toBe(6);
    expect(checkPackage({ tree, tags: ['os:linux'] })).toEqual([]);
  });

  test('a folder holding a same-named entry explodes fine', () => {
    const tree = makeTree(['game/game*'], 'game/game');
    const [warning] = checkPackage({ tree, tags: ['os:linux'] });
    applyFix(tree, [], warning!.fix!);
    expect(findEntry(tree, 'game')?.kind).toBe('file');
    expect(tree.entrypoint).toEqual(['game']);
  });

  test('comes before the entrypoint warnings', () => {
    const tree = makeTree(['Build/index.html']);
    expect(codes(checkPackage({ tree, tags: [] }))).toEqual(['single_root_directory', 'entrypoint_not_set']);
    setEntrypoint(tree, 'Build/index.html');
    expect(codes(checkPackage({ tree, tags: [] }))).toEqual(['single_root_directory', 'html_needs_web']);
  });

  test('a macOS app bundle, a single file or two folders are fine', () => {
    expect(codes(checkPackage({ tree: makeTree(['My Game.app/Contents/MacOS/game*'], 'My Game.app/Contents/MacOS/game'), tags: ['os:macos'] }))).toEqual([]);
    expect(codes(checkPackage({ tree: makeTree(['game*'], 'game'), tags: ['os:linux'] }))).toEqual([]);
    expect(codes(checkPackage({ tree: makeTree(['a/game*', 'b/'], 'a/game'), tags: ['os:linux'] }))).toEqual([]);
  });
});

describe('order and purity', () => {
  test('every applicable warning, in the documented order', () => {
    const tree = makeTree(['Dist/setup.msi']);
    tree.entrypoint = ['Dist', 'setup.msi'];
    expect(codes(checkPackage({ tree, tags: ['os:linux'] }))).toEqual(['single_root_directory', 'extension_suggests_tag', 'not_executable']);
    const zip = makeTree(['Out/game.tar.gz'], 'Out/game.tar.gz');
    expect(codes(checkPackage({ tree: zip, tags: ['os:linux'] }))).toEqual(['single_root_directory', 'archive_entrypoint', 'not_executable']);
  });

  test('checking changes neither tree nor tags', () => {
    const tree = makeTree(['Dir/run.sh'], 'Dir/run.sh');
    const tags = ['bits:64'];
    checkPackage({ tree, tags });
    expect(tags).toEqual(['bits:64']);
    expect(tree.entrypoint).toEqual(['Dir', 'run.sh']);
    expect(findEntry(tree, 'Dir/run.sh')?.mode).toBe(0);
  });

  test('tree edits that cannot apply throw archive errors', () => {
    const tree = makeTree(['game']);
    try {
      applyFix(tree, [], { kind: 'set_executable', path: ['missing'] });
      throw new Error('no throw');
    } catch (error) {
      expect(isArchiveError(error)).toBe(true);
    }
    expect(() => applyFix(tree, [], { kind: 'explode_root', path: ['game'] })).toThrow();
  });
});

describe('texts for the CLI', () => {
  test('every warning and fix has an English text', () => {
    const tree = makeTree(['Dir/setup.msi', 'Dir/x.json'], 'Dir/setup.msi');
    const all: PackageWarning[] = [
      { code: 'no_files' },
      ...checkPackage({ tree, tags: ['os:linux'] }),
      ...checkPackage({ tree: makeTree(['a.json', 'b.zip', 'c.html']), tags: [] }),
      ...checkPackage({ tree: makeTree(['a.json'], 'a.json'), tags: [] }),
      ...checkPackage({ tree: makeTree(['b.zip'], 'b.zip'), tags: [] }),
      ...checkPackage({ tree: makeTree(['c.html'], 'c.html'), tags: [] }),
      ...checkPackage({ tree: makeTree(['c.html']), tags: [], entrypoint: ['gone'] }),
      ...checkPackage({ tree: makeTree(['c.js', 'index.html'], 'c.js'), tags: [] }),
      { code: 'header_suggests_tag', path: ['game'], format: 'elf', tags: ['os:linux'], fix: { kind: 'add_tags', tags: ['os:linux'] } },
    ];
    expect(new Set(codes(all)).size).toBe(11);
    for (const warning of all) {
      expect(describeWarning(warning).length).toBeGreaterThan(10);
      if (warning.fix) expect(describeFix(warning.fix).length).toBeGreaterThan(5);
    }
    expect(describeWarning({ code: 'extension_suggests_tag', path: ['a', 'b.exe'], extension: 'exe', tags: ['os:windows'] })).toBe(
      "The start file 'a/b.exe' ends in .exe, which suggests the tags os:windows.",
    );
    expect(describeFix({ kind: 'set_entrypoint', candidates: [['bin', 'game']] })).toBe("set the start file (e.g. 'bin/game')");
    expect(describeWarning({ code: 'header_suggests_tag', path: ['hopper'], format: 'macho', tags: ['os:macos', 'arch:arm'] })).toBe(
      "The header of the start file 'hopper' (Mach-O) suggests the tags os:macos, arch:arm.",
    );
  });
});

describe('fileExtension', () => {
  test.each([
    ['game.exe', 'exe'],
    ['Game.EXE', 'exe'],
    ['game.tar.gz', 'tar.gz'],
    ['.tar.gz', 'gz'],
    ['README', ''],
    ['.bashrc', ''],
    ['a.b.c', 'c'],
    ['trailing.', ''],
  ])('%p → %p', (name, extension) => {
    expect(fileExtension(name)).toBe(extension);
  });
});
