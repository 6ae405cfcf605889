import { Link } from 'wouter';
import { package_page_play_browser } from '../../paraglide/messages/package_page_play_browser.js';
import { store_packages_empty } from '../../paraglide/messages/store_packages_empty.js';
import { Size } from '../../components/size.tsx';
import { EmptyState } from '../../components/states.tsx';
import { TagList } from '../../components/tag-list.tsx';
import { trpc } from '../../lib/trpc.ts';
import { storePlayHref } from '../projects/links.ts';
import { DownloadButtons, type DownloadSource } from '../projects/package/package-downloads.tsx';
import { WEB_TAG } from '../projects/package/package-launchers.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { package_page_play_browser, store_packages_empty };

/** The packages of a branch's current version: title, tags, size, downloads and Play for web packages. */
export function StorePackages({ projectId, branchId, packages }: { projectId: string; branchId: string; packages: { id: string }[] }) {
  if (packages.length === 0) return <EmptyState>{m.store_packages_empty()}</EmptyState>;
  return (
    <ul className="store_packages">
      {packages.map((item) => (
        <li key={item.id} className="store_package" data-package-id={item.id}>
          <StorePackage projectId={projectId} branchId={branchId} packageId={item.id} />
        </li>
      ))}
    </ul>
  );
}

/**
 * The store project lists package ids only; packages.get gives the rest (visitors may read a package
 * published to a public branch). Should it fail, the id and the downloads still show.
 */
function StorePackage({ projectId, branchId, packageId }: { projectId: string; branchId: string; packageId: string }) {
  const utils = trpc.useUtils();
  const details = trpc.packages.get.useQuery({ project: projectId, package: packageId });
  const pkg = details.data;
  const input = { project: projectId, branch: branchId, package: packageId };
  const source: DownloadSource = {
    zipUrl: async () => (await utils.packageDownloads.storeUrl.fetch({ ...input, filter: 'zip' }, { staleTime: 0 })).url,
    torrent: () => utils.packageDownloads.storeTorrent.fetch(input, { staleTime: 0 }),
  };
  return (
    <div className="store_package_body">
      <div className="store_package_info">
        <p className="store_package_title">{pkg ? <bdi>{pkg.title}</bdi> : <code>{packageId}</code>}</p>
        {pkg ? (
          <>
            <TagList tags={pkg.tags} />
            {pkg.size !== null ? <Size bytes={pkg.size} className="store_package_size" /> : null}
          </>
        ) : null}
      </div>
      <div className="store_package_actions">
        {pkg?.tags.includes(WEB_TAG) ? (
          <Link href={storePlayHref(projectId, branchId, packageId)} className="button button_primary">
            {m.package_page_play_browser()}
          </Link>
        ) : null}
        <DownloadButtons source={source} />
      </div>
    </div>
  );
}
