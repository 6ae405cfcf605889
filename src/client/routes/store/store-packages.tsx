import { Link } from 'wouter';
import { package_page_cloud_play } from '../../../shared/i18n/paraglide/messages/package_page_cloud_play.js';
import { package_page_play_browser } from '../../../shared/i18n/paraglide/messages/package_page_play_browser.js';
import { store_packages_empty } from '../../../shared/i18n/paraglide/messages/store_packages_empty.js';
import { Size } from '../../components/size.tsx';
import { EmptyState } from '../../components/states.tsx';
import { TagList } from '../../components/tag-list.tsx';
import { useLocalApp } from '../../lib/local-app/use-local-app.ts';
import { trpc } from '../../lib/trpc.ts';
import type { StorePackage as StorePackageSummary, StoreProject } from '../../../shared/schemas/store.ts';
import { storeCloudPlayHref, storePlayHref } from '../projects/links.ts';
import { DownloadButtons } from '../projects/package/package-downloads.tsx';
import { useCloudPlayOfferReasons, WEB_TAG } from '../projects/package/package-launchers.tsx';
import { LocalLaunchers, type LocalTarget } from '../projects/package/local-launchers.tsx';
import { storeDownloadSource, storeInstallable, useStoreVersionId, type ProjectRef } from './store-installable.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { package_page_cloud_play, package_page_play_browser, store_packages_empty };

type StoreBranch = StoreProject['branches'][number];

/**
 * The packages of a branch's current version, under "All downloads": title, tags, size, the ZIP and the
 * torrent, Play for web packages, Play in cloud where allowed; the local app's Install, Launch and
 * Update only while the app is connected (a visitor without it gets the card's one offer instead).
 */
export function StorePackages({ project, branch, packages }: { project: ProjectRef; branch: StoreBranch; packages: StorePackageSummary[] }) {
  if (packages.length === 0) return <EmptyState>{m.store_packages_empty()}</EmptyState>;
  return (
    <ul className="store_packages">
      {packages.map((pkg) => (
        <li key={pkg.id} className="store_package" data-package-id={pkg.id}>
          <StorePackage project={project} branch={branch} pkg={pkg} />
        </li>
      ))}
    </ul>
  );
}

/** The store project carries each package's summary, so nothing is fetched until a download or an install starts. */
function StorePackage({ project, branch, pkg }: { project: ProjectRef; branch: StoreBranch; pkg: StorePackageSummary }) {
  const utils = trpc.useUtils();
  const local = useLocalApp({ lists: false });
  const cloudPlayAllowed = useCloudPlayOfferReasons(pkg.tags).length === 0;
  const source = storeDownloadSource(utils, { project: project.id, branch: branch.id, package: pkg.id });
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
          <Link href={storePlayHref(project.id, branch.id, pkg.id)} className="button button_primary">
            {m.package_page_play_browser()}
          </Link>
        ) : null}
        {cloudPlayAllowed ? (
          <Link href={storeCloudPlayHref(project.id, branch.id, pkg.id)} className="button">
            {m.package_page_cloud_play()}
          </Link>
        ) : null}
        <DownloadButtons source={source} />
      </div>
      {local.connected ? <ConnectedLaunchers project={project} branch={branch} pkg={pkg} /> : null}
    </div>
  );
}

function ConnectedLaunchers({ project, branch, pkg }: { project: ProjectRef; branch: StoreBranch; pkg: StorePackageSummary }) {
  const utils = trpc.useUtils();
  const versionId = useStoreVersionId(project.id, branch.id);
  const target: LocalTarget = { packageId: pkg.id, installable: storeInstallable(utils, project, branch, versionId, pkg) };
  return (
    <ul className="package_launchers store_local_launchers">
      <LocalLaunchers target={target} compact />
    </ul>
  );
}
