import { Link } from 'wouter';
import { package_page_cloud_play } from '../../paraglide/messages/package_page_cloud_play.js';
import { package_page_play_browser } from '../../paraglide/messages/package_page_play_browser.js';
import { store_packages_empty } from '../../paraglide/messages/store_packages_empty.js';
import { Size } from '../../components/size.tsx';
import { EmptyState } from '../../components/states.tsx';
import { TagList } from '../../components/tag-list.tsx';
import { trpc } from '../../lib/trpc.ts';
import type { StorePackage as StorePackageSummary } from '../../../shared/schemas/store.ts';
import { storeCloudPlayHref, storePlayHref } from '../projects/links.ts';
import { DownloadButtons, type DownloadSource } from '../projects/package/package-downloads.tsx';
import { useCloudPlayReasons, WEB_TAG } from '../projects/package/package-launchers.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { package_page_cloud_play, package_page_play_browser, store_packages_empty };

/** The packages of a branch's current version: title, tags, size, downloads, Play for web packages and Play in cloud where allowed. */
export function StorePackages({ projectId, branchId, packages }: { projectId: string; branchId: string; packages: StorePackageSummary[] }) {
  if (packages.length === 0) return <EmptyState>{m.store_packages_empty()}</EmptyState>;
  return (
    <ul className="store_packages">
      {packages.map((pkg) => (
        <li key={pkg.id} className="store_package" data-package-id={pkg.id}>
          <StorePackage projectId={projectId} branchId={branchId} pkg={pkg} />
        </li>
      ))}
    </ul>
  );
}

/** The store project carries each package's summary, so nothing is fetched until a download starts. */
function StorePackage({ projectId, branchId, pkg }: { projectId: string; branchId: string; pkg: StorePackageSummary }) {
  const utils = trpc.useUtils();
  const cloudPlayAllowed = useCloudPlayReasons(pkg.tags).length === 0;
  const input = { project: projectId, branch: branchId, package: pkg.id };
  const source: DownloadSource = {
    zipUrl: async () => (await utils.packageDownloads.storeUrl.fetch({ ...input, filter: 'zip' }, { staleTime: 0 })).url,
    torrent: () => utils.packageDownloads.storeTorrent.fetch(input, { staleTime: 0 }),
  };
  return (
    <div className="store_package_body">
      <div className="store_package_info">
        <p className="store_package_title">
          <bdi>{pkg.title}</bdi>
        </p>
        <TagList tags={pkg.tags} />
        {pkg.size !== null ? <Size bytes={pkg.size} className="store_package_size" /> : null}
      </div>
      <div className="store_package_actions">
        {pkg.tags.includes(WEB_TAG) ? (
          <Link href={storePlayHref(projectId, branchId, pkg.id)} className="button button_primary">
            {m.package_page_play_browser()}
          </Link>
        ) : null}
        {cloudPlayAllowed ? (
          <Link href={storeCloudPlayHref(projectId, branchId, pkg.id)} className="button">
            {m.package_page_cloud_play()}
          </Link>
        ) : null}
        <DownloadButtons source={source} />
      </div>
    </div>
  );
}
