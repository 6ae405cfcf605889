import { sortTags, tagGroups, type TagGroup, type TagValue } from './tags.ts';

/** Names used in default titles (stored data, so English like the rest of stored defaults). */
const valueNames: { [G in TagGroup]: Record<TagValue<G>, string> } = {
  os: { windows: 'Windows', linux: 'Linux', macos: 'macOS', android: 'Android', ios: 'iOS', web: 'Web' },
  arch: { x86: 'x86', arm: 'ARM' },
  bits: { '32': '32-bit', '64': '64-bit' },
  packaging: { installer: 'Installer', deb: 'DEB', rpm: 'RPM', flatpak: 'Flatpak' },
  component: { client: 'Client', server: 'Server' },
  runtime: { nodejs: 'Node.js', java: 'Java' },
  distro: { ubuntu: 'Ubuntu', fedora: 'Fedora', arch: 'Arch', nixos: 'NixOS' },
};

/** Word order of a title; distro is folded into the os word: 'Linux (Ubuntu)'. */
const titleOrder = ['os', 'arch', 'bits', 'runtime', 'packaging', 'component'] as const satisfies readonly TagGroup[];

const DEFAULT_PACKAGE_TITLE_MAX_LENGTH = 100;
/** The title of a package with neither its own title nor known tags. */
const FALLBACK_PACKAGE_TITLE = 'Package';

function namesOf(tags: ReadonlySet<string>, group: TagGroup): string[] {
  const names: Record<string, string> = valueNames[group];
  return tagGroups[group].filter((value) => tags.has(`${group}:${value}`)).map((value) => names[value]!);
}

/** 'Linux (Ubuntu) x86 64-bit' from the tags alone; '' without known tags. Several values join with '/'. */
export function describeTags(tags: readonly string[]): string {
  const set = new Set(sortTags(tags));
  const words: string[] = [];
  for (const group of titleOrder) {
    const names = namesOf(set, group);
    if (names.length === 0) continue;
    let word = names.join('/');
    if (group === 'os') {
      const distros = namesOf(set, 'distro');
      if (distros.length > 0) word = word.replace('Linux', `Linux (${distros.join('/')})`);
    }
    words.push(word);
  }
  return words.join(' ');
}

/**
 * The title of a package without its own: 'Linux x86 64-bit', 'Web', or 'Package' without known tags;
 * cut to maxLength (a title field's limit) at the last whole word. No version in it: a package is
 * listed in several versions (see package-name.ts, the naming rule that uses it).
 */
export function defaultPackageTitle(tags: readonly string[], maxLength = DEFAULT_PACKAGE_TITLE_MAX_LENGTH): string {
  const title = describeTags(tags);
  if (title === '') return FALLBACK_PACKAGE_TITLE;
  if (title.length <= maxLength) return title;
  const cut = title.slice(0, maxLength + 1);
  const space = cut.lastIndexOf(' ');
  return (space > 0 ? cut.slice(0, space) : [...title].slice(0, maxLength).join('')).trimEnd();
}
export { packageFileName, sanitizeFileName } from './file-name.ts';
