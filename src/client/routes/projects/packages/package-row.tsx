import { Link } from 'wouter';
import { package_page_delete } from '../../../../shared/i18n/paraglide/messages/package_page_delete.js';
import { package_page_size_pending } from '../../../../shared/i18n/paraglide/messages/package_page_size_pending.js';
import { packages_delete_named } from '../../../../shared/i18n/paraglide/messages/packages_delete_named.js';
import { packages_deleted_on } from '../../../../shared/i18n/paraglide/messages/packages_deleted_on.js';
import { packages_in_no_version } from '../../../../shared/i18n/paraglide/messages/packages_in_no_version.js';
import { orphanDeletionDate, PackageStatusBadge, StartFile } from '../../../components/package-facts.tsx';
import { Size } from '../../../components/size.tsx';
import { TagList } from '../../../components/tag-list.tsx';
import { useLanguage } from '../../../lib/i18n/index.ts';
import { useInstance } from '../../../lib/instance.ts';
import { formatDate } from '../../../../shared/format/date.ts';
import type { ProjectPackage } from '../../../../shared/schemas/packages.ts';
import { packageHref, versionHref } from '../links.ts';
import type { PackageColumns } from './project-packages.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { package_page_delete, package_page_size_pending, packages_delete_named, packages_deleted_on, packages_in_no_version };

/**
 * One package: its title (to its page), tags, the versions it is in (to theirs), size, upload date (and,
 * in no version, when it is deleted automatically), start file, and Delete when given (in no version only).
 */
export function PackageRow({ projectId, pkg, columns, onDelete }: { projectId: string; pkg: ProjectPackage; columns: PackageColumns; onDelete?: () => void }) {
  const { language } = useLanguage();
  const { orphanPackageDays } = useInstance();
  const deletion = orphanDeletionDate(pkg, orphanPackageDays);
  const orphan = pkg.versions.length === 0;
  return (
    <tr data-package-id={pkg.id} data-orphan={orphan || undefined}>
      <td data-label={columns.package} className="packages_title">
        <Link href={packageHref(projectId, pkg.id)}>
          <bdi>{pkg.title}</bdi>
        </Link>
        <PackageStatusBadge status={pkg.status} />
      </td>
      <td data-label={columns.tags}>
        <div className="packages_cell">
          <TagList tags={pkg.tags} />
        </div>
      </td>
      <td data-label={columns.versions}>
        <div className="packages_cell">
          {orphan ? (
            <span className="packages_no_version">{m.packages_in_no_version()}</span>
          ) : (
            <ul className="packages_versions">
              {pkg.versions.map((version) => (
                <li key={version.id}>
                  <Link href={versionHref(projectId, version.id)}>
                    <bdi>{version.title}</bdi>
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </div>
      </td>
      <td data-label={columns.size} className="packages_size">
        <div className="packages_cell">{pkg.size === null ? <span className="packages_muted">{m.package_page_size_pending()}</span> : <Size bytes={pkg.size} />}</div>
      </td>
      <td data-label={columns.date}>
        <div className="packages_cell">
          <time dateTime={pkg.created}>{formatDate(pkg.created, language)}</time>
          {deletion ? (
            <span className="packages_deletion" data-deletion={deletion}>
              {m.packages_deleted_on({ date: formatDate(deletion, language) })}
            </span>
          ) : null}
        </div>
      </td>
      <td data-label={columns.start}>
        <div className="packages_cell">
          <StartFile entrypoint={pkg.entrypoint} />
        </div>
      </td>
      {onDelete ? (
        <td data-label={columns.actions} className="packages_actions">
          {orphan ? (
            <div className="packages_cell">
              <button type="button" className="button button_quiet button_danger_text" aria-label={m.packages_delete_named({ title: pkg.title })} onClick={onDelete}>
                {m.package_page_delete()}
              </button>
            </div>
          ) : null}
        </td>
      ) : null}
    </tr>
  );
}
