/**
 * The search of the project's packages screen and the add-existing dialog: a package matches when
 * every word typed is found in its title, a tag ('os:linux', or its value 'linux'), its start file
 * ('bin/run.sh'), a version it is in, or the extra words the page gives (its tags' shown labels).
 * Case, accents and width are ignored ('LINUX', 'Linüx' and 'ｌｉｎｕｘ' find 'Linux').
 */
export type SearchablePackage = {
  title: string;
  tags: readonly string[];
  entrypoint: readonly string[] | null;
  versions: readonly { title: string }[];
};

/** Text as the search compares it: NFKD, combining marks dropped, lower case. */
export function foldForSearch(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** The words of a query (blank: none, which matches everything). */
export function searchWords(query: string): string[] {
  return foldForSearch(query).split(/\s+/u).filter((word) => word !== '');
}

function packageSearchText(pkg: SearchablePackage, extra: readonly string[] = []): string {
  const parts = [pkg.title, ...pkg.tags, ...pkg.tags.map((tag) => tag.slice(tag.indexOf(':') + 1)), pkg.entrypoint?.join('/') ?? '', ...pkg.versions.map((version) => version.title), ...extra];
  return foldForSearch(parts.join('\n'));
}

export function matchesPackageSearch(pkg: SearchablePackage, query: string, extra: readonly string[] = []): boolean {
  const words = searchWords(query);
  if (words.length === 0) return true;
  const text = packageSearchText(pkg, extra);
  return words.every((word) => text.includes(word));
}
