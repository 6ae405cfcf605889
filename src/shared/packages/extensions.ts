import type { PackageTag } from './tags.ts';

/** Multi-part extensions, longest first, so 'game.tar.gz' is 'tar.gz' and not 'gz'. */
const COMPOUND_EXTENSIONS = ['tar.gz', 'tar.xz', 'tar.bz2', 'tar.zst', 'tar.lz', 'tar.lzma'];

/** Lower-case extension without the dot: 'tar.gz', 'exe'; '' for 'README' or '.bashrc'. */
export function fileExtension(name: string): string {
  const lower = name.toLowerCase();
  for (const compound of COMPOUND_EXTENSIONS) {
    if (lower.endsWith(`.${compound}`) && lower.length > compound.length + 1) return compound;
  }
  const dot = lower.lastIndexOf('.');
  return dot <= 0 ? '' : lower.slice(dot + 1);
}

/** Spec §5 "probably wrong extension" for an entrypoint: data and libraries, not programs. */
export const WRONG_ENTRYPOINT_EXTENSIONS: ReadonlySet<string> = new Set(['css', 'dat', 'dll', 'json', 'so', 'toml', 'txt', 'yaml', 'yml']);

/** Spec §5 "archive entrypoint discouraged": the package is already an archive. */
export const ARCHIVE_EXTENSIONS: ReadonlySet<string> = new Set([
  '7z', 'rar', 'zip', 'tar', 'tar.gz', 'tgz', 'tar.xz', 'txz', 'tar.bz2', 'tbz', 'tbz2', 'tar.zst', 'tzst', 'tar.lz', 'tar.lzma',
]);

/** Entrypoints installed by a package manager, so they need no executable bit. */
export const SYSTEM_PACKAGE_EXTENSIONS: ReadonlySet<string> = new Set(['deb', 'rpm', 'flatpak']);
export const SYSTEM_PACKAGING_TAGS: readonly PackageTag[] = ['packaging:deb', 'packaging:rpm', 'packaging:flatpak'];

/**
 * Spec §5 "extension suggests tag": the tags an entrypoint's extension implies. `satisfiedBy` lists
 * tags that already make the suggestion moot (a shell script is also at home on macOS).
 */
export type TagSuggestion = { code: 'html_needs_web' | 'extension_suggests_tag'; tags: readonly PackageTag[]; satisfiedBy?: readonly PackageTag[] };

export const TAG_SUGGESTIONS: ReadonlyMap<string, TagSuggestion> = new Map<string, TagSuggestion>([
  ['html', { code: 'html_needs_web', tags: ['os:web'] }],
  ['htm', { code: 'html_needs_web', tags: ['os:web'] }],
  ['exe', { code: 'extension_suggests_tag', tags: ['os:windows'] }],
  ['bat', { code: 'extension_suggests_tag', tags: ['os:windows'] }],
  ['cmd', { code: 'extension_suggests_tag', tags: ['os:windows'] }],
  ['msi', { code: 'extension_suggests_tag', tags: ['os:windows', 'packaging:installer'] }],
  ['deb', { code: 'extension_suggests_tag', tags: ['os:linux', 'packaging:deb'] }],
  ['rpm', { code: 'extension_suggests_tag', tags: ['os:linux', 'packaging:rpm'] }],
  ['flatpak', { code: 'extension_suggests_tag', tags: ['os:linux', 'packaging:flatpak'] }],
  ['appimage', { code: 'extension_suggests_tag', tags: ['os:linux'] }],
  ['sh', { code: 'extension_suggests_tag', tags: ['os:linux'], satisfiedBy: ['os:macos'] }],
  ['jar', { code: 'extension_suggests_tag', tags: ['runtime:java'] }],
  ['js', { code: 'extension_suggests_tag', tags: ['runtime:nodejs'] }],
  ['mjs', { code: 'extension_suggests_tag', tags: ['runtime:nodejs'] }],
  ['cjs', { code: 'extension_suggests_tag', tags: ['runtime:nodejs'] }],
  ['apk', { code: 'extension_suggests_tag', tags: ['os:android'] }],
  ['ipa', { code: 'extension_suggests_tag', tags: ['os:ios'] }],
  ['dmg', { code: 'extension_suggests_tag', tags: ['os:macos'] }],
]);
