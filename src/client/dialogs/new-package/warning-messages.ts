import type { PackageFix, PackageWarning } from '../../../shared/packages/checks.ts';
import { programFormatName } from '../../../shared/packages/program-detect.ts';
import { pluralForm } from '../../../shared/format/plural.ts';
import { package_check_archive_entrypoint } from '../../../shared/i18n/paraglide/messages/package_check_archive_entrypoint.js';
import { package_check_entrypoint_missing } from '../../../shared/i18n/paraglide/messages/package_check_entrypoint_missing.js';
import { package_check_entrypoint_not_set } from '../../../shared/i18n/paraglide/messages/package_check_entrypoint_not_set.js';
import { package_check_extension_suggests_tag } from '../../../shared/i18n/paraglide/messages/package_check_extension_suggests_tag.js';
import { package_check_fix_add_tags_one } from '../../../shared/i18n/paraglide/messages/package_check_fix_add_tags_one.js';
import { package_check_fix_add_tags_other } from '../../../shared/i18n/paraglide/messages/package_check_fix_add_tags_other.js';
import { package_check_fix_explode_root } from '../../../shared/i18n/paraglide/messages/package_check_fix_explode_root.js';
import { package_check_fix_set_entrypoint } from '../../../shared/i18n/paraglide/messages/package_check_fix_set_entrypoint.js';
import { package_check_fix_set_executable } from '../../../shared/i18n/paraglide/messages/package_check_fix_set_executable.js';
import { package_check_fix_unset_entrypoint } from '../../../shared/i18n/paraglide/messages/package_check_fix_unset_entrypoint.js';
import { package_check_header_suggests_tag } from '../../../shared/i18n/paraglide/messages/package_check_header_suggests_tag.js';
import { package_check_html_needs_web } from '../../../shared/i18n/paraglide/messages/package_check_html_needs_web.js';
import { package_check_no_files } from '../../../shared/i18n/paraglide/messages/package_check_no_files.js';
import { package_check_not_executable } from '../../../shared/i18n/paraglide/messages/package_check_not_executable.js';
import { package_check_single_root_directory } from '../../../shared/i18n/paraglide/messages/package_check_single_root_directory.js';
import { package_check_web_needs_page } from '../../../shared/i18n/paraglide/messages/package_check_web_needs_page.js';
import { package_check_wrong_extension } from '../../../shared/i18n/paraglide/messages/package_check_wrong_extension.js';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  package_check_archive_entrypoint,
  package_check_entrypoint_missing,
  package_check_entrypoint_not_set,
  package_check_extension_suggests_tag,
  package_check_fix_add_tags_one,
  package_check_fix_add_tags_other,
  package_check_fix_explode_root,
  package_check_fix_set_entrypoint,
  package_check_fix_set_executable,
  package_check_fix_unset_entrypoint,
  package_check_header_suggests_tag,
  package_check_html_needs_web,
  package_check_no_files,
  package_check_not_executable,
  package_check_single_root_directory,
  package_check_web_needs_page,
  package_check_wrong_extension,
};

/** Tags as written in the package ('os:web'): the fix adds exactly these. */
const tagList = (tags: readonly string[] | undefined) => (tags ?? []).join(', ');

/** The parameters of a warning's sentence as text: its path, extension ('.exe') and tags. */
export function warningParts(warning: PackageWarning): { path: string; extension: string; tags: string } {
  return { path: (warning.path ?? []).join('/'), extension: `.${warning.extension ?? ''}`, tags: tagList(warning.tags) };
}

/**
 * A warning's translated text, its parameters filled in (spec §5 package checks); `slots` puts
 * stand-ins in their place instead (rich(): isolated elements in the sentence).
 */
export function warningText(warning: PackageWarning, slots: Partial<ReturnType<typeof warningParts>> = {}): string {
  const { path, extension, tags } = { ...warningParts(warning), ...slots };
  switch (warning.code) {
    case 'no_files':
      return m.package_check_no_files();
    case 'single_root_directory':
      return m.package_check_single_root_directory({ path });
    case 'entrypoint_not_set':
      return m.package_check_entrypoint_not_set();
    case 'entrypoint_missing':
      return m.package_check_entrypoint_missing({ path });
    case 'wrong_extension':
      return m.package_check_wrong_extension({ path, extension });
    case 'archive_entrypoint':
      return m.package_check_archive_entrypoint({ path, extension });
    case 'html_needs_web':
      return m.package_check_html_needs_web({ path, tags });
    case 'web_needs_page':
      return m.package_check_web_needs_page({ path });
    case 'extension_suggests_tag':
      return m.package_check_extension_suggests_tag({ path, extension, tags });
    case 'header_suggests_tag':
      return m.package_check_header_suggests_tag({ path, format: warning.format ? programFormatName(warning.format) : '?', tags });
    case 'not_executable':
      return m.package_check_not_executable({ path, linux: 'Linux', macos: 'macOS' });
  }
}

/** The label of a fix's button. */
export function fixLabel(fix: PackageFix): string {
  switch (fix.kind) {
    case 'add_tags':
      return (pluralForm(fix.tags.length) === 'one' ? m.package_check_fix_add_tags_one : m.package_check_fix_add_tags_other)({ tags: tagList(fix.tags) });
    case 'set_executable':
      return m.package_check_fix_set_executable();
    case 'explode_root':
      return m.package_check_fix_explode_root();
    case 'set_entrypoint':
      return m.package_check_fix_set_entrypoint();
    case 'unset_entrypoint':
      return m.package_check_fix_unset_entrypoint();
  }
}
