import { defaultPackageTitle } from './default-title.ts';
import { packageFileName, type PackageFileKind } from './file-name.ts';

/**
 * The one naming rule of a package, for every page (package, version, store, sidebars, play, the
 * upload list), the command-line client and the download file names:
 *
 * - its own title when it has one (stored per package, set at upload or by a rename);
 * - else the title its tags give: 'Linux x86 64-bit', 'Web', or 'Package' without known tags.
 *
 * The version is never part of it: a package is listed in several versions (a push carries the
 * packages of other tags into the new version; "add existing package"), so a version in its name
 * would be wrong everywhere but in one of them and would change the name from page to page. Pages
 * that show a package in a version show the version beside it (trail, heading).
 */
export function packageTitle(pkg: { title?: string | null; tags: readonly string[] }): string {
  const own = pkg.title?.trim();
  return own ? own : defaultPackageTitle(pkg.tags);
}

/**
 * Spec §7 '{project title} {package title}.zip' (the ZIP download and the file inside its torrent);
 * '.crt' for the Cartridge archive, '.crt-index' for its index, '.torrent' for the torrent.
 */
export function packageDownloadName(
  projectTitle: string,
  pkg: { title?: string | null; tags: readonly string[] },
  kind: PackageFileKind = 'zip',
): string {
  return packageFileName(projectTitle, packageTitle(pkg), kind);
}
