import type { PackageTag } from './tags.ts';

/**
 * Programs recognised by their first bytes, not their names: a Linux build's `hopper` has no
 * extension, and a browser (or a ZIP, or a Windows share) hands over no file modes at all.
 */
export type ProgramFormat = 'elf' | 'macho' | 'script' | 'pe';

export type ProgramInfo = {
  format: ProgramFormat;
  /** Something a player starts; false for a shared object, dylib or DLL. */
  startable: boolean;
  /** It cannot run on Linux or macOS without the executable bit (ELF, Mach-O, `#!` scripts; not PE). */
  needsExecutable: boolean;
  /** What the header says it runs on, in tag order; a universal Mach-O names both arches. */
  tags: PackageTag[];
  /** Tags that make the os suggestion moot (a shell script is at home on macOS too). */
  satisfiedBy?: PackageTag[];
  /** A script's `#!` line after the two characters, trimmed (shown, never run). */
  interpreter?: string;
};

/** Bytes read from the start of a file to classify it: ELF program headers and PE's offset fit. */
export const PROGRAM_SNIFF_BYTES = 4096;

const SHEBANG_MAX = 256;

function u16(bytes: Uint8Array, at: number, little: boolean): number | undefined {
  if (at + 2 > bytes.length) return undefined;
  return little ? bytes[at]! | (bytes[at + 1]! << 8) : (bytes[at]! << 8) | bytes[at + 1]!;
}

function u32(bytes: Uint8Array, at: number, little: boolean): number | undefined {
  if (at + 4 > bytes.length) return undefined;
  const [a, b, c, d] = [bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!];
  return (little ? a | (b << 8) | (c << 16) | (d << 24) : (a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

/** Offsets above 2^53 cannot be in a sniffed head anyway: read the low 32 bits, refuse a high half. */
function u64(bytes: Uint8Array, at: number, little: boolean): number | undefined {
  const low = u32(bytes, little ? at : at + 4, little);
  const high = u32(bytes, little ? at + 4 : at, little);
  if (low === undefined || high === undefined) return undefined;
  return high === 0 ? low : Number.MAX_SAFE_INTEGER;
}

function archTags(arch: 'x86' | 'arm' | undefined, bits: 32 | 64 | undefined): PackageTag[] {
  const tags: PackageTag[] = [];
  if (arch) tags.push(`arch:${arch}`);
  if (bits) tags.push(`bits:${bits}`);
  return tags;
}

const ELF_MACHINES: ReadonlyMap<number, 'x86' | 'arm'> = new Map([
  [3, 'x86'], // EM_386
  [62, 'x86'], // EM_X86_64
  [40, 'arm'], // EM_ARM
  [183, 'arm'], // EM_AARCH64
]);
const ELF_OSABI_LINUX = new Set([0, 3]); // System V (what Linux toolchains write) and GNU/Linux
const ET_EXEC = 2;
const ET_DYN = 3;
const PT_INTERP = 3;

/**
 * A position-independent executable and a shared object are both ET_DYN: the program asks for an
 * interpreter (PT_INTERP), the library does not. Undefined when the program headers lie past the head.
 */
function elfHasInterpreter(bytes: Uint8Array, is64: boolean, little: boolean): boolean | undefined {
  const phoff = is64 ? u64(bytes, 32, little) : u32(bytes, 28, little);
  const phentsize = u16(bytes, is64 ? 54 : 42, little);
  const phnum = u16(bytes, is64 ? 56 : 44, little);
  if (phoff === undefined || phentsize === undefined || phnum === undefined || phentsize < 4) return undefined;
  for (let i = 0; i < phnum; i++) {
    const type = u32(bytes, phoff + i * phentsize, little);
    if (type === undefined) return undefined;
    if (type === PT_INTERP) return true;
  }
  return false;
}

function detectElf(bytes: Uint8Array): ProgramInfo | undefined {
  const elfClass = bytes[4];
  const data = bytes[5];
  if ((elfClass !== 1 && elfClass !== 2) || (data !== 1 && data !== 2)) return undefined;
  const is64 = elfClass === 2;
  const little = data === 1;
  const type = u16(bytes, 16, little);
  const machine = u16(bytes, 18, little);
  if (type !== ET_EXEC && type !== ET_DYN) return undefined; // relocatable objects and core dumps
  const arch = machine === undefined ? undefined : ELF_MACHINES.get(machine);
  // A static PIE has no interpreter either; past the head we cannot tell: then it counts as a program.
  const startable = type === ET_EXEC || elfHasInterpreter(bytes, is64, little) !== false;
  const os: PackageTag[] = ELF_OSABI_LINUX.has(bytes[7]!) ? ['os:linux'] : [];
  return { format: 'elf', startable, needsExecutable: true, tags: [...os, ...archTags(arch, is64 ? 64 : 32)] };
}

const MACHO_CPU_X86 = 7;
const MACHO_CPU_ARM = 12;
const MACHO_ABI64 = 0x0100_0000;
const MH_EXECUTE = 2;

function machoArch(cpu: number): 'x86' | 'arm' | undefined {
  const family = cpu & ~MACHO_ABI64;
  return family === MACHO_CPU_X86 ? 'x86' : family === MACHO_CPU_ARM ? 'arm' : undefined;
}

function detectThinMacho(bytes: Uint8Array): ProgramInfo | undefined {
  const magic = u32(bytes, 0, false);
  // 0xfeedface / 0xfeedfacf as written big-endian; 0xcefaedfe / 0xcffaedfe when little-endian (every Mac since 2006).
  const little = magic === 0xcefaedfe || magic === 0xcffaedfe;
  if (!little && magic !== 0xfeedface && magic !== 0xfeedfacf) return undefined;
  const is64 = magic === 0xfeedfacf || magic === 0xcffaedfe;
  const cpu = u32(bytes, 4, little);
  const fileType = u32(bytes, 12, little);
  if (cpu === undefined || fileType === undefined) return undefined;
  return { format: 'macho', startable: fileType === MH_EXECUTE, needsExecutable: true, tags: ['os:macos', ...archTags(machoArch(cpu), is64 ? 64 : 32)] };
}

/** Java class files share 0xcafebabe; their minor+major version makes the "count" 45 or more. */
const FAT_MAX_ARCHS = 20;

function detectFatMacho(bytes: Uint8Array): ProgramInfo | undefined {
  const magic = u32(bytes, 0, false);
  if (magic !== 0xcafebabe && magic !== 0xcafebabf) return undefined;
  const count = u32(bytes, 4, false);
  if (count === undefined || count === 0 || count >= FAT_MAX_ARCHS) return undefined;
  const entrySize = magic === 0xcafebabf ? 32 : 20;
  const arches = new Set<'x86' | 'arm'>();
  const bits = new Set<32 | 64>();
  for (let i = 0; i < count; i++) {
    const cpu = u32(bytes, 8 + i * entrySize, false);
    if (cpu === undefined) break;
    const arch = machoArch(cpu);
    if (arch) arches.add(arch);
    bits.add((cpu & MACHO_ABI64) !== 0 ? 64 : 32);
  }
  const tags: PackageTag[] = ['os:macos'];
  for (const arch of ['x86', 'arm'] as const) if (arches.has(arch)) tags.push(`arch:${arch}`);
  // A universal build of 32- and 64-bit slices says nothing single about bits.
  if (bits.size === 1) tags.push(`bits:${[...bits][0]!}`);
  // The slices' own headers (executable or dylib) lie far past the head: a universal file counts as a program.
  return { format: 'macho', startable: true, needsExecutable: true, tags };
}

const PE_MACHINES: ReadonlyMap<number, { arch: 'x86' | 'arm'; bits: 32 | 64 }> = new Map([
  [0x014c, { arch: 'x86', bits: 32 }],
  [0x8664, { arch: 'x86', bits: 64 }],
  [0x01c0, { arch: 'arm', bits: 32 }],
  [0x01c4, { arch: 'arm', bits: 32 }],
  [0xaa64, { arch: 'arm', bits: 64 }],
]);
const IMAGE_FILE_DLL = 0x2000;

function detectPe(bytes: Uint8Array): ProgramInfo | undefined {
  const offset = u32(bytes, 0x3c, true);
  if (offset === undefined || offset < 0x40) return undefined;
  // A DOS program or a PE header past the head: still a Windows program, of unknown arch.
  if (offset + 24 > bytes.length) return { format: 'pe', startable: true, needsExecutable: false, tags: ['os:windows'] };
  if (bytes[offset] !== 0x50 || bytes[offset + 1] !== 0x45 || bytes[offset + 2] !== 0 || bytes[offset + 3] !== 0) return undefined;
  const machine = PE_MACHINES.get(u16(bytes, offset + 4, true)!);
  const characteristics = u16(bytes, offset + 22, true)!;
  return {
    format: 'pe',
    startable: (characteristics & IMAGE_FILE_DLL) === 0,
    needsExecutable: false,
    tags: ['os:windows', ...archTags(machine?.arch, machine?.bits)],
  };
}

function detectScript(bytes: Uint8Array): ProgramInfo | undefined {
  let end = 2;
  while (end < bytes.length && end < SHEBANG_MAX && bytes[end] !== 0x0a) end++;
  const line = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(2, end)).replace(/\r$/, '').trim();
  // '#!' and then nothing (or text that names no program) is a comment, not a launcher.
  if (!/^\/|^[A-Za-z]/.test(line) || /[\0-\x08\x0b-\x1f]/.test(line)) return undefined;
  return { format: 'script', startable: true, needsExecutable: true, tags: ['os:linux'], satisfiedBy: ['os:macos'], interpreter: line };
}

/**
 * What kind of program a file is, from its first bytes (PROGRAM_SNIFF_BYTES of them are enough; fewer
 * give less detail); undefined for anything else. Pure: reads the bytes, changes nothing.
 */
export function detectProgram(head: Uint8Array): ProgramInfo | undefined {
  if (head.length < 4) return head[0] === 0x23 && head[1] === 0x21 ? detectScript(head) : undefined;
  if (head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46) return detectElf(head);
  if (head[0] === 0x23 && head[1] === 0x21) return detectScript(head);
  if (head[0] === 0x4d && head[1] === 0x5a) return detectPe(head);
  return detectThinMacho(head) ?? detectFatMacho(head);
}

/** The programs of a tree by path ('bin/game'), as the checks and the start file choice take them. */
export type ProgramLookup = ReadonlyMap<string, ProgramInfo>;

export function programKey(parts: readonly string[]): string {
  return parts.join('/');
}

/** A format's name as developers know it (not translated): 'ELF', 'Mach-O', 'PE', '#!'. */
export function programFormatName(format: ProgramFormat): string {
  return { elf: 'ELF', macho: 'Mach-O', pe: 'PE', script: '#!' }[format];
}
