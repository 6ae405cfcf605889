import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { addFile, createTree, findEntry, setEntrypoint, type ArchiveTree } from '../../../src/shared/archive/index.ts';
import { bytesSource } from '../../../src/shared/archive/sources.ts';
import { applyFix, checkPackage, entrypointCandidates, preferredEntrypoint, type PackageWarning } from '../../../src/shared/packages/checks.ts';
import { PROGRAM_SNIFF_BYTES } from '../../../src/shared/packages/program-detect.ts';
import { findPrograms, markPrograms, readSourceHead } from '../../../src/shared/packages/tree-programs.ts';

const elf = new Uint8Array(readFileSync('/bin/true'));
const library = new Uint8Array(readFileSync('/usr/lib/x86_64-linux-gnu/libm.so.6').subarray(0, PROGRAM_SNIFF_BYTES));
const text = (value: string) => new TextEncoder().encode(value);
const machoArm = (() => {
  const header = new Uint8Array(64);
  const view = new DataView(header.buffer);
  view.setUint32(0, 0xfeedfacf, true);
  view.setUint32(4, 0x0100000c, true);
  view.setUint32(12, 2, true);
  return header;
})();
const pe64 = (() => {
  const header = new Uint8Array(512);
  const view = new DataView(header.buffer);
  view.setUint16(0, 0x5a4d, true);
  view.setUint32(0x3c, 0x80, true);
  view.setUint32(0x80, 0x4550, true);
  view.setUint16(0x84, 0x8664, true);
  view.setUint16(0x96, 0x22, true);
  return header;
})();

/** A tree of files with the given contents, every mode 0 as a browser hands them over. */
async function build(files: Record<string, Uint8Array>, entrypoint?: string) {
  const tree: ArchiveTree = createTree();
  for (const [path, bytes] of Object.entries(files)) addFile(tree, path, bytesSource(bytes, 1000));
  if (entrypoint) setEntrypoint(tree, entrypoint);
  const programs = await findPrograms(tree.root);
  return { tree, programs };
}

const codes = (warnings: PackageWarning[]) => warnings.map((warning) => warning.code);

describe('programs found in a tree', () => {
  test('an extensionless ELF, a #! script, a Mach-O, a PE and a library are found; data is not', async () => {
    const { programs } = await build({
      hopper: elf,
      'tools/run': text('#!/bin/sh\nexec ./hopper\n'),
      'mac/Game': machoArm,
      'Game.exe': pe64,
      'lib/libm.so.6': library,
      'data/level.pck': text('GDPC...'),
      'empty.bin': new Uint8Array(),
    });
    expect([...programs.keys()].sort()).toEqual(['Game.exe', 'hopper', 'lib/libm.so.6', 'mac/Game', 'tools/run']);
    expect(programs.get('hopper')).toMatchObject({ format: 'elf', tags: ['os:linux', 'arch:x86', 'bits:64'] });
    expect(programs.get('tools/run')).toMatchObject({ format: 'script', interpreter: '/bin/sh' });
  });

  test('markPrograms sets the bit of what cannot run without it, and says which', async () => {
    const { tree, programs } = await build({ hopper: elf, 'run.sh': text('#!/bin/bash\n'), 'Game.exe': pe64, 'lib/libm.so.6': library, 'notes.txt': text('hi') });
    expect(markPrograms(tree.root, programs)).toEqual([['hopper'], ['lib', 'libm.so.6'], ['run.sh']]);
    expect(findEntry(tree, 'hopper')?.mode).toBe(1);
    expect(findEntry(tree, 'Game.exe')?.mode).toBe(0);
    expect(findEntry(tree, 'notes.txt')?.mode).toBe(0);
    // Already executable: nothing to change.
    expect(markPrograms(tree.root, programs)).toEqual([]);
  });

  test('readSourceHead reads at most the head, from streams in pieces and from Blobs', async () => {
    const big = new Uint8Array(100_000).map((_, i) => i & 0xff);
    expect(await readSourceHead(bytesSource(big, 1000))).toEqual(big.subarray(0, PROGRAM_SNIFF_BYTES));
    expect(await readSourceHead(bytesSource(big.subarray(0, 10)))).toEqual(big.subarray(0, 10));
    expect(await readSourceHead(new Blob([big]))).toEqual(big.subarray(0, PROGRAM_SNIFF_BYTES));
    let pulled = 0;
    const endless = { size: Number.MAX_SAFE_INTEGER, stream: () => new ReadableStream<Uint8Array>({ pull: (controller) => void (pulled++, controller.enqueue(new Uint8Array(1000))) }) };
    expect((await readSourceHead(endless)).length).toBe(PROGRAM_SNIFF_BYTES);
    expect(pulled).toBeLessThan(10);
  });

  test('a head that cannot be read fails the search', async () => {
    const tree = createTree();
    addFile(tree, 'gone', { size: 5, stream: () => new ReadableStream({ pull: (controller) => controller.error(new Error('moved away')) }) });
    await expect(findPrograms(tree.root)).rejects.toThrow('moved away');
  });
});

describe('start file choice with programs (issue 29: "No file looks like a program")', () => {
  test('an extensionless ELF and a #! script are offered although no mode says so; the library is not', async () => {
    const { tree, programs } = await build({ hopper: elf, start: text('#!/bin/sh\n'), 'libm.so.6': library, README: text('read me') });
    expect(entrypointCandidates(tree.root)).toEqual([]);
    expect(checkPackage({ tree, tags: [] })).toEqual([{ code: 'entrypoint_not_set', fix: { kind: 'set_entrypoint', candidates: [] } }]);
    expect(entrypointCandidates(tree.root, { programs })).toEqual([['hopper'], ['start']]);
    expect(checkPackage({ tree, tags: [], programs })[0]?.fix).toEqual({ kind: 'set_entrypoint', candidates: [['hopper'], ['start']] });
  });

  test('the header decides which program suits the tags', async () => {
    const { tree, programs } = await build({ 'a-mac': machoArm, 'b-linux': elf, 'c-win': pe64 });
    expect(preferredEntrypoint(tree.root, ['os:linux'], programs)).toEqual(['b-linux']);
    expect(preferredEntrypoint(tree.root, ['os:macos'], programs)).toEqual(['a-mac']);
    expect(preferredEntrypoint(tree.root, ['os:windows'], programs)).toEqual(['c-win']);
    // A script suits macOS as well as Linux.
    const scripts = await build({ 'a.bin': text('data'), launch: text('#!/bin/sh\n') });
    expect(preferredEntrypoint(scripts.tree.root, ['os:macos'], scripts.programs)).toEqual(['launch']);
  });

  test('an executable-mode library (as linkers write them) is no longer offered', async () => {
    const tree = createTree();
    addFile(tree, 'libfoo.so.1', bytesSource(library), { mode: 1 });
    addFile(tree, 'game', bytesSource(elf), { mode: 1 });
    expect(entrypointCandidates(tree.root)).toEqual([['game'], ['libfoo.so.1']]);
    expect(entrypointCandidates(tree.root, { programs: await findPrograms(tree.root) })).toEqual([['game']]);
  });
});

describe('header suggests tags', () => {
  test('an ELF start file suggests os, arch and bits, with a one-click fix', async () => {
    const { tree, programs } = await build({ hopper: elf }, 'hopper');
    markPrograms(tree.root, programs);
    const warnings = checkPackage({ tree, tags: [], programs });
    expect(warnings).toEqual([
      { code: 'header_suggests_tag', path: ['hopper'], format: 'elf', tags: ['os:linux', 'arch:x86', 'bits:64'], fix: { kind: 'add_tags', tags: ['os:linux', 'arch:x86', 'bits:64'] } },
    ]);
    const { tags } = applyFix(tree, ['bits:64'], warnings[0]!.fix!);
    expect(tags).toEqual(['os:linux', 'arch:x86', 'bits:64']);
    expect(checkPackage({ tree, tags, programs })).toEqual([]);
  });

  test('only the tags the package lacks; none the extension suggests already', async () => {
    const exe = await build({ 'Game.exe': pe64 }, 'Game.exe');
    expect(checkPackage({ tree: exe.tree, tags: [], programs: exe.programs })).toEqual([
      { code: 'extension_suggests_tag', path: ['Game.exe'], extension: 'exe', tags: ['os:windows'], fix: { kind: 'add_tags', tags: ['os:windows'] } },
      { code: 'header_suggests_tag', path: ['Game.exe'], format: 'pe', tags: ['arch:x86', 'bits:64'], fix: { kind: 'add_tags', tags: ['arch:x86', 'bits:64'] } },
    ]);
    expect(checkPackage({ tree: exe.tree, tags: ['os:windows', 'arch:x86', 'bits:64'], programs: exe.programs })).toEqual([]);
    const sh = await build({ 'run.sh': text('#!/bin/sh\n') }, 'run.sh');
    markPrograms(sh.tree.root, sh.programs);
    expect(codes(checkPackage({ tree: sh.tree, tags: [], programs: sh.programs }))).toEqual(['extension_suggests_tag']);
    expect(checkPackage({ tree: sh.tree, tags: ['os:macos'], programs: sh.programs })).toEqual([]);
  });

  test('a mistagged build is told what its header says', async () => {
    const { tree, programs } = await build({ Game: machoArm }, 'Game');
    markPrograms(tree.root, programs);
    expect(checkPackage({ tree, tags: ['os:macos', 'arch:x86'], programs })).toEqual([
      { code: 'header_suggests_tag', path: ['Game'], format: 'macho', tags: ['arch:arm', 'bits:64'], fix: { kind: 'add_tags', tags: ['arch:arm', 'bits:64'] } },
    ]);
  });
});

describe('a native start file without its executable bit', () => {
  test('an ELF warns and blocks whatever the tags say (it showed only after os:linux was ticked)', async () => {
    const { tree, programs } = await build({ hopper: elf }, 'hopper');
    const full = ['os:linux', 'arch:x86', 'bits:64'];
    for (const tags of [[], ['os:windows'], full]) {
      const warning = checkPackage({ tree, tags, programs }).find((item) => item.code === 'not_executable');
      expect(warning).toEqual({ code: 'not_executable', path: ['hopper'], fix: { kind: 'set_executable', path: ['hopper'] }, blocksCreate: true });
    }
    applyFix(tree, full, { kind: 'set_executable', path: ['hopper'] });
    expect(checkPackage({ tree, tags: full, programs })).toEqual([]);
  });

  test('a #! script blocks too; a PE does not need the bit; packages installed by a package manager never do', async () => {
    const script = await build({ start: text('#!/bin/sh\n') }, 'start');
    expect(checkPackage({ tree: script.tree, tags: ['os:linux'], programs: script.programs })).toEqual([
      { code: 'not_executable', path: ['start'], fix: { kind: 'set_executable', path: ['start'] }, blocksCreate: true },
    ]);
    const exe = await build({ 'Game.exe': pe64 }, 'Game.exe');
    expect(codes(checkPackage({ tree: exe.tree, tags: ['os:windows', 'arch:x86', 'bits:64'], programs: exe.programs }))).toEqual([]);
    const deb = await build({ hopper: elf }, 'hopper');
    expect(codes(checkPackage({ tree: deb.tree, tags: ['os:linux', 'arch:x86', 'bits:64', 'packaging:deb'], programs: deb.programs }))).toEqual([]);
  });

  test('by tags alone: extensionless and native-named files block, a jar only warns', async () => {
    const blocks = (name: string, tags: string[]) => {
      const tree = createTree();
      addFile(tree, name, bytesSource(text('data')));
      setEntrypoint(tree, name);
      return checkPackage({ tree, tags }).find((item) => item.code === 'not_executable')?.blocksCreate ?? false;
    };
    expect(blocks('game', ['os:linux'])).toBe(true);
    expect(blocks('game.x86_64', ['os:linux'])).toBe(true);
    expect(blocks('run.sh', ['os:macos'])).toBe(true);
    expect(blocks('Game.jar', ['os:linux', 'runtime:java'])).toBe(false);
  });
});
