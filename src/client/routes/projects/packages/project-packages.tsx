import { packages_col_actions } from '../../../../shared/i18n/paraglide/messages/packages_col_actions.js';
import { packages_col_date } from '../../../../shared/i18n/paraglide/messages/packages_col_date.js';
import { packages_col_package } from '../../../../shared/i18n/paraglide/messages/packages_col_package.js';
import { packages_col_size } from '../../../../shared/i18n/paraglide/messages/packages_col_size.js';
import { packages_col_tags } from '../../../../shared/i18n/paraglide/messages/packages_col_tags.js';
import { packages_col_versions } from '../../../../shared/i18n/paraglide/messages/packages_col_versions.js';
import { packages_crumb } from '../../../../shared/i18n/paraglide/messages/packages_crumb.js';
import { packages_empty } from '../../../../shared/i18n/paraglide/messages/packages_empty.js';
import { packages_no_match } from '../../../../shared/i18n/paraglide/messages/packages_no_match.js';
import { packages_page_intro } from '../../../../shared/i18n/paraglide/messages/packages_page_intro.js';
import { packages_page_title } from '../../../../shared/i18n/paraglide/messages/packages_page_title.js';
import { packages_results } from '../../../../shared/i18n/paraglide/messages/packages_results.js';
import { package_page_start_file } from '../../../../shared/i18n/paraglide/messages/package_page_start_file.js';
import { store_index_clear } from '../../../../shared/i18n/paraglide/messages/store_index_clear.js';
import { PackageSearchField, usePackageSearch } from '../../../components/package-search.tsx';
import { EmptyState, ErrorState, LoadingState } from '../../../components/states.tsx';
import { trpc } from '../../../lib/trpc.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import { can } from '../project-frame.tsx';
import { PackageRow } from './package-row.tsx';
import { usePackageDelete } from './use-package-delete.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  package_page_start_file,
  packages_col_actions,
  packages_col_date,
  packages_col_package,
  packages_col_size,
  packages_col_tags,
  packages_col_versions,
  packages_crumb,
  packages_empty,
  packages_no_match,
  packages_page_intro,
  packages_page_title,
  packages_results,
  store_index_clear,
};

/** The columns' headings, also each cell's label when a narrow screen shows rows as cards. */
function packageColumns() {
  return {
    package: m.packages_col_package(),
    tags: m.packages_col_tags(),
    versions: m.packages_col_versions(),
    size: m.packages_col_size(),
    date: m.packages_col_date(),
    start: m.package_page_start_file(),
    actions: m.packages_col_actions(),
  };
}
export type PackageColumns = ReturnType<typeof packageColumns>;

export function ProjectPackages({ project }: { project: Project }) {
  const list = trpc.packages.list.useQuery({ project: project.id });
  const { query, setQuery, visible } = usePackageSearch(list.data ?? []);
  const remove = usePackageDelete(project.id);
  const canDelete = can(project, 'deletePackage');
  const columns = packageColumns();
  const total = list.data?.length ?? 0;

  return (
    <>
      <div className="packages_head">
        <div>
          <h1>{m.packages_page_title({ project: project.title })}</h1>
          <p className="packages_intro">{m.packages_page_intro()}</p>
        </div>
        {total > 0 ? <PackageSearchField value={query} onChange={setQuery} /> : null}
      </div>
      <p className="packages_status" role="status" aria-live="polite">
        {list.data && total > 0 ? m.packages_results({ count: String(visible.length) }) : ''}
      </p>
      {list.isPending ? <LoadingState /> : null}
      {list.error ? <ErrorState error={list.error} onRetry={() => void list.refetch()} /> : null}
      {list.data && total === 0 ? <EmptyState icon="packages">{m.packages_empty()}</EmptyState> : null}
      {list.data && total > 0 && visible.length === 0 ? (
        <EmptyState
          icon="packages"
          action={
            <button type="button" className="button" onClick={() => setQuery('')}>
              {m.store_index_clear()}
            </button>
          }
        >
          {m.packages_no_match({ query: query.trim() })}
        </EmptyState>
      ) : null}
      {visible.length > 0 ? (
        <table className="packages_table" aria-label={m.packages_crumb()}>
          <thead>
            <tr>
              <th scope="col">{columns.package}</th>
              <th scope="col">{columns.tags}</th>
              <th scope="col">{columns.versions}</th>
              <th scope="col">{columns.size}</th>
              <th scope="col">{columns.date}</th>
              <th scope="col">{columns.start}</th>
              {canDelete ? <th scope="col">{columns.actions}</th> : null}
            </tr>
          </thead>
          <tbody>
            {visible.map((pkg) => (
              <PackageRow key={pkg.id} projectId={project.id} pkg={pkg} columns={columns} onDelete={canDelete ? () => void remove(pkg) : undefined} />
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}
