import type { PackageFix, PackageWarning } from './checks.ts';
import { programFormatName } from './program-detect.ts';

const show = (parts: readonly string[] | undefined): string => `'${(parts ?? []).join('/')}'`;

/** English text of a warning, for the CLI and logs; the browser uses its own translated messages per code. */
export function describeWarning(warning: PackageWarning): string {
  const extension = `.${warning.extension ?? ''}`;
  const tags = (warning.tags ?? []).join(', ');
  switch (warning.code) {
    case 'no_files':
      return 'The package has no files.';
    case 'single_root_directory':
      return `Everything is inside the folder ${show(warning.path)}; putting its contents at the top is recommended.`;
    case 'entrypoint_not_set':
      return 'No start file is set: players will not know which file starts the game.';
    case 'entrypoint_missing':
      return `The start file ${show(warning.path)} is not a file of the package.`;
    case 'wrong_extension':
      return `The start file ${show(warning.path)} ends in ${extension}, which is probably not a program.`;
    case 'archive_entrypoint':
      return `The start file ${show(warning.path)} is an archive (${extension}); upload its contents instead.`;
    case 'html_needs_web':
      return `The start file ${show(warning.path)} is a web page: add the tag ${tags} so it can be played in the browser.`;
    case 'web_needs_page':
      return `The start file ${show(warning.path)} is not a web page, but a web build starts at its HTML page (usually index.html).`;
    case 'extension_suggests_tag':
      return `The start file ${show(warning.path)} ends in ${extension}, which suggests the tags ${tags}.`;
    case 'header_suggests_tag':
      return `The header of the start file ${show(warning.path)}${warning.format ? ` (${programFormatName(warning.format)})` : ''} suggests the tags ${tags}.`;
    case 'not_executable':
      return `The start file ${show(warning.path)} is not marked executable, so it cannot start on Linux or macOS.`;
  }
}

/** English label of a fix, for the CLI. */
export function describeFix(fix: PackageFix): string {
  switch (fix.kind) {
    case 'add_tags':
      return `add tags ${fix.tags.join(', ')}`;
    case 'set_executable':
      return `mark ${show(fix.path)} executable`;
    case 'explode_root':
      return `replace ${show(fix.path)} with its contents`;
    case 'set_entrypoint':
      return fix.candidates.length > 0 ? `set the start file (e.g. ${show(fix.candidates[0])})` : 'set the start file';
    case 'unset_entrypoint':
      return 'unset the start file';
  }
}
