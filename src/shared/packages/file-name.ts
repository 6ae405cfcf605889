import { bidiControlClass } from '../archive/paths.ts';

/** Characters no common file system (NTFS, FAT, APFS, ext4) or shell-friendly download accepts. */
const FORBIDDEN = /[<>:"/\\|?*\u0000-\u001f\u007f-\u009f]/g;
/** Bidi controls let a name display as something else ('gnp.exe' shown as 'exe.png'): dropped. */
const BIDI_CONTROLS = new RegExp(`[${bidiControlClass}]`, 'g');
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;
/** Most file systems cap a name at 255 bytes; room is left for a browser's ' (1)' suffix. */
const MAX_NAME_BYTES = 240;

/**
 * What a package downloads as, by extension: the ZIP, the Cartridge archive (`.crt`, as the CLI writes
 * it), its encoded index, and the torrent of the ZIP.
 */
export const packageFileExtensions = { zip: '.zip', archive: '.crt', index: '.crt-index', torrent: '.torrent' } as const;
export type PackageFileKind = keyof typeof packageFileExtensions;

const encoder = new TextEncoder();

function cutToBytes(text: string, maxBytes: number): string {
  let bytes = 0;
  let out = '';
  for (const char of text) {
    bytes += encoder.encode(char).length;
    if (bytes > maxBytes) break;
    out += char;
  }
  return out;
}

/** A name safe on every common file system: no separators or reserved characters, no leading dots. */
export function sanitizeFileName(name: string, maxBytes = MAX_NAME_BYTES): string {
  let clean = name.normalize('NFC').replace(BIDI_CONTROLS, '').replace(FORBIDDEN, '_').replace(/\s+/g, ' ');
  clean = clean.replace(/^[\s.]+/, '');
  clean = cutToBytes(clean, maxBytes).replace(/[\s.]+$/, '');
  if (WINDOWS_RESERVED.test(clean.split('.')[0] ?? '')) clean = `_${clean}`;
  return clean;
}

/**
 * Spec §7 download ZIP file name: '{project title} {package title}.zip', sanitised; the other kinds
 * keep the stem with their own extension. The package title is packageTitle() (package-name.ts).
 */
export function packageFileName(projectTitle: string, packageTitle: string, kind: PackageFileKind = 'zip'): string {
  const extension = packageFileExtensions[kind];
  // Every kind of one package shares the ZIP's stem (cut within MAX_NAME_BYTES with '.zip'; the
  // longest extension still keeps the name under 255 bytes).
  const base = sanitizeFileName(`${projectTitle.trim()} ${packageTitle.trim()}`, MAX_NAME_BYTES - packageFileExtensions.zip.length);
  return `${base === '' ? 'package' : base}${extension}`;
}
