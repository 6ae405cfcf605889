import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { detectProgram, PROGRAM_SNIFF_BYTES } from '../../../src/shared/packages/program-detect.ts';

const head = (path: string) => new Uint8Array(readFileSync(path).subarray(0, PROGRAM_SNIFF_BYTES));
const text = (value: string) => new TextEncoder().encode(value);

/** A header of `size` zero bytes with the given values written at their offsets. */
type Write = readonly [offset: number, width: 1 | 2 | 4, value: number, little?: boolean];

function bytes(size: number, writes: readonly Write[]): Uint8Array {
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  for (const [offset, width, value, little = true] of writes) {
    if (width === 1) view.setUint8(offset, value);
    else if (width === 2) view.setUint16(offset, value, little);
    else view.setUint32(offset, value, little);
  }
  return out;
}

const ELF: Write[] = [[0, 4, 0x7f454c46, false]];

describe('ELF', () => {
  test("this machine's /bin/ls: a Linux x86 64-bit program", () => {
    expect(detectProgram(head('/bin/ls'))).toEqual({ format: 'elf', startable: true, needsExecutable: true, tags: ['os:linux', 'arch:x86', 'bits:64'] });
  });

  test('a shared object (no interpreter) is a library, not a start file, but still wants its bit', () => {
    expect(detectProgram(head('/usr/lib/x86_64-linux-gnu/libm.so.6'))).toMatchObject({ format: 'elf', startable: false, needsExecutable: true });
  });

  test('32-bit ARM big-endian executable', () => {
    const header = bytes(64, [...ELF, [4, 1, 1], [5, 1, 2], [16, 2, 2, false], [18, 2, 40, false]]);
    expect(detectProgram(header)).toEqual({ format: 'elf', startable: true, needsExecutable: true, tags: ['os:linux', 'arch:arm', 'bits:32'] });
  });

  test('aarch64 and i386 machines; an unknown machine still says os and bits', () => {
    const elf = (machine: number, elfClass: 1 | 2) => detectProgram(bytes(64, [...ELF, [4, 1, elfClass], [5, 1, 1], [16, 2, 2], [18, 2, machine]]));
    expect(elf(183, 2)?.tags).toEqual(['os:linux', 'arch:arm', 'bits:64']);
    expect(elf(3, 1)?.tags).toEqual(['os:linux', 'arch:x86', 'bits:32']);
    expect(elf(0x9026, 2)?.tags).toEqual(['os:linux', 'bits:64']);
  });

  test('a FreeBSD program names no os tag (there is none for it)', () => {
    expect(detectProgram(bytes(64, [...ELF, [4, 1, 2], [5, 1, 1], [7, 1, 9], [16, 2, 2], [18, 2, 62]]))?.tags).toEqual(['arch:x86', 'bits:64']);
  });

  test('objects, core dumps, bad class or byte order and truncated heads are no programs; nothing throws', () => {
    expect(detectProgram(bytes(64, [...ELF, [4, 1, 2], [5, 1, 1], [16, 2, 1], [18, 2, 62]]))).toBeUndefined();
    expect(detectProgram(bytes(64, [...ELF, [4, 1, 2], [5, 1, 1], [16, 2, 4], [18, 2, 62]]))).toBeUndefined();
    expect(detectProgram(bytes(64, [...ELF, [4, 1, 3], [5, 1, 1], [16, 2, 2]]))).toBeUndefined();
    expect(detectProgram(bytes(64, [...ELF, [4, 1, 2], [5, 1, 0], [16, 2, 2]]))).toBeUndefined();
    expect(detectProgram(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1]))).toBeUndefined();
  });

  test('a PIE whose program headers lie past the head counts as a program', () => {
    const header = bytes(64, [...ELF, [4, 1, 2], [5, 1, 1], [16, 2, 3], [18, 2, 62], [32, 4, 1_000_000], [54, 2, 56], [56, 2, 13]]);
    expect(detectProgram(header)?.startable).toBe(true);
  });
});

describe('Mach-O', () => {
  test('a thin 64-bit arm64 executable (little-endian, as every Mac writes it)', () => {
    const header = bytes(32, [[0, 4, 0xfeedfacf], [4, 4, 0x0100000c], [12, 4, 2]]);
    expect(header.subarray(0, 4)).toEqual(new Uint8Array([0xcf, 0xfa, 0xed, 0xfe]));
    expect(detectProgram(header)).toEqual({ format: 'macho', startable: true, needsExecutable: true, tags: ['os:macos', 'arch:arm', 'bits:64'] });
  });

  test('a 32-bit x86 one, big-endian magic; a dylib is no start file', () => {
    expect(detectProgram(bytes(32, [[0, 4, 0xfeedface, false], [4, 4, 7, false], [12, 4, 2, false]]))?.tags).toEqual(['os:macos', 'arch:x86', 'bits:32']);
    expect(detectProgram(bytes(32, [[0, 4, 0xfeedfacf], [4, 4, 0x01000007], [12, 4, 6]]))).toMatchObject({ startable: false, tags: ['os:macos', 'arch:x86', 'bits:64'] });
  });

  test('a universal (fat) binary of x86_64 and arm64 names both arches', () => {
    const header = bytes(48, [[0, 4, 0xcafebabe, false], [4, 4, 2, false], [8, 4, 0x01000007, false], [28, 4, 0x0100000c, false]]);
    expect(detectProgram(header)).toEqual({ format: 'macho', startable: true, needsExecutable: true, tags: ['os:macos', 'arch:x86', 'arch:arm', 'bits:64'] });
  });

  test('a universal binary of 32- and 64-bit x86 slices names no bits; the 64-bit fat magic too', () => {
    expect(detectProgram(bytes(48, [[0, 4, 0xcafebabe, false], [4, 4, 2, false], [8, 4, 7, false], [28, 4, 0x01000007, false]]))?.tags).toEqual(['os:macos', 'arch:x86']);
    expect(detectProgram(bytes(48, [[0, 4, 0xcafebabf, false], [4, 4, 1, false], [8, 4, 0x0100000c, false]]))?.tags).toEqual(['os:macos', 'arch:arm', 'bits:64']);
  });

  test('a Java class file shares the fat magic and is no Mach-O', () => {
    // Minor 0, major 52 (Java 8).
    expect(detectProgram(bytes(16, [[0, 4, 0xcafebabe, false], [4, 2, 0, false], [6, 2, 52, false]]))).toBeUndefined();
    expect(detectProgram(bytes(8, [[0, 4, 0xcafebabe, false]]))).toBeUndefined();
  });
});

describe('PE', () => {
  const pe = (machine: number, characteristics: number) =>
    bytes(512, [[0, 2, 0x5a4d], [0x3c, 4, 0x80], [0x80, 4, 0x00004550], [0x84, 2, machine], [0x96, 2, characteristics]]);

  test('a 64-bit x86 executable and a 32-bit one; a DLL is no start file; no bit needed', () => {
    expect(detectProgram(pe(0x8664, 0x0022))).toEqual({ format: 'pe', startable: true, needsExecutable: false, tags: ['os:windows', 'arch:x86', 'bits:64'] });
    expect(detectProgram(pe(0x014c, 0x0102))?.tags).toEqual(['os:windows', 'arch:x86', 'bits:32']);
    expect(detectProgram(pe(0xaa64, 0x0022))?.tags).toEqual(['os:windows', 'arch:arm', 'bits:64']);
    expect(detectProgram(pe(0x8664, 0x2022))).toMatchObject({ format: 'pe', startable: false });
  });

  test('a PE header past the head is still a Windows program; MZ with a broken offset or signature is none', () => {
    expect(detectProgram(bytes(64, [[0, 2, 0x5a4d], [0x3c, 4, 0x10000]]))).toEqual({ format: 'pe', startable: true, needsExecutable: false, tags: ['os:windows'] });
    expect(detectProgram(bytes(64, [[0, 2, 0x5a4d], [0x3c, 4, 4]]))).toBeUndefined();
    expect(detectProgram(bytes(512, [[0, 2, 0x5a4d], [0x3c, 4, 0x80], [0x80, 4, 0x12345678]]))).toBeUndefined();
    expect(detectProgram(text('MZ is how this readme starts'))).toBeUndefined();
  });
});

describe('scripts', () => {
  test.each([
    ['#!/bin/sh\necho hi\n', '/bin/sh'],
    ['#! /usr/bin/env bash\r\nexit 0', '/usr/bin/env bash'],
    ['#!/usr/bin/env python3', '/usr/bin/env python3'],
  ])('%j runs with %s', (source, interpreter) => {
    expect(detectProgram(text(source))).toEqual({ format: 'script', startable: true, needsExecutable: true, tags: ['os:linux'], satisfiedBy: ['os:macos'], interpreter });
  });

  test('#! with nothing after it, control characters or a BOM first is no launcher', () => {
    expect(detectProgram(text('#!'))).toBeUndefined();
    expect(detectProgram(text('#!\n'))).toBeUndefined();
    expect(detectProgram(text('#!  \n/bin/sh'))).toBeUndefined();
    expect(detectProgram(text('#!/bin/sh\u0001x'))).toBeUndefined();
    expect(detectProgram(text('\uFEFF#!/bin/sh\n'))).toBeUndefined();
  });
});

describe('anything else', () => {
  test('text, pictures, empty and tiny files are no programs', () => {
    expect(detectProgram(text('hello'))).toBeUndefined();
    expect(detectProgram(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBeUndefined();
    expect(detectProgram(new Uint8Array())).toBeUndefined();
    expect(detectProgram(new Uint8Array([0x7f]))).toBeUndefined();
  });

  test('random and hostile heads never throw', () => {
    let seed = 29;
    const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) & 0xff;
    const starts = [[0x7f, 0x45, 0x4c, 0x46], [0x4d, 0x5a], [0xca, 0xfe, 0xba, 0xbe], [0xcf, 0xfa, 0xed, 0xfe], [0x23, 0x21], []];
    for (let round = 0; round < 3000; round++) {
      const size = next() % 200;
      const sample = Uint8Array.from({ length: size }, next);
      sample.set(starts[round % starts.length]!.slice(0, size));
      expect(() => detectProgram(sample)).not.toThrow();
    }
    // Program headers claimed at the end of the head, 65535 of them.
    const header = bytes(64, [...ELF, [4, 1, 2], [5, 1, 1], [16, 2, 3], [18, 2, 62], [32, 4, 60], [54, 2, 56], [56, 2, 0xffff]]);
    expect(detectProgram(header)?.startable).toBe(true);
  });
});
