import { Link } from 'wouter';
import { package_page_size_pending } from '../../../../shared/i18n/paraglide/messages/package_page_size_pending.js';
import { package_page_version_empty } from '../../../../shared/i18n/paraglide/messages/package_page_version_empty.js';
import { Size } from '../../../components/size.tsx';
import { EmptyState, ErrorState, LoadingState } from '../../../components/states.tsx';
import { TagList } from '../../../components/tag-list.tsx';
import { trpc } from '../../../lib/trpc.ts';
import { packageHref } from '../links.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { package_page_size_pending, package_page_version_empty };

/** A version's packages in its order: title (to the package page, keeping the way in), tags, size. */
export function VersionPackages({ projectId, versionId, branchId }: { projectId: string; versionId: string; branchId?: string }) {
  const query = trpc.packages.ofVersion.useQuery({ project: projectId, version: versionId });
  if (query.error) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  if (!query.data) return <LoadingState />;
  if (query.data.length === 0) return <EmptyState icon="packages">{m.package_page_version_empty()}</EmptyState>;
  return (
    <ul className="item_list version_packages" data-testid="version-packages">
      {query.data.map((pkg) => (
        <li key={pkg.id} className="item version_package" data-package-id={pkg.id}>
          <div className="item_main">
            <Link href={packageHref(projectId, pkg.id, { version: versionId, branch: branchId })} className="version_package_title">
              <bdi>{pkg.title}</bdi>
            </Link>
            <TagList tags={pkg.tags} />
          </div>
          <span className="version_package_size">{pkg.size === null ? m.package_page_size_pending() : <Size bytes={pkg.size} />}</span>
        </li>
      ))}
    </ul>
  );
}
