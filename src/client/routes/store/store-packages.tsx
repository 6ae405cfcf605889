import { Link } from 'wouter';
import { package_page_cloud_play } from '../../paraglide/messages/package_page_cloud_play.js';
import { package_page_play_browser } from '../../paraglide/messages/package_page_play_browser.js';
import { store_packages_empty } from '../../paraglide/messages/store_packages_empty.js';
import { Size } from '../../components/size.tsx';
import { EmptyState } from '../../components/states.tsx';
import { TagList } from '../../components/tag-list.tsx';
import type { InstallablePackage } from '../../lib/local-app/install.ts';
import { useLocalApp } from '../../lib/local-app/use-local-app.ts';
import { trpc } from '../../lib/trpc.ts';
import type { StorePackage as StorePackageSummary, StoreProject } from '../../../shared/schemas/store.ts';
import { storeCloudPlayHref, storePlayHref } from '../projects/links.ts';
import { DownloadButtons, type DownloadSource } from '../projects/package/package-downloads.tsx';
import { useCloudPlayOfferReasons, WEB_TAG } from '../projects/package/package-launchers.tsx';
import { LocalLaunchers, type LocalTarget } from '../projects/package/local-launchers.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { package_page_cloud_play, package_page_play_browser, store_packages_empty };

type StoreBranch = StoreProject['branches'][number];
type ProjectRef = { id: string; title: string };

/** The packages of a branch's current version: title, tags, size, downloads, Play for web packages, Play in cloud where allowed, and the local app's Install, Launch and Update. */
export function StorePackages({ project, branch, packages }: { project: ProjectRef; branch: StoreBranch; packages: StorePackageSummary[] }) {
  // The branch's current version id (the store reply names its title only): for the local app, which
  // records it and compares it for Update; asked only once the app is connected.
  const local = useLocalApp({ lists: false });
  const branches = trpc.projects.branches.list.useQuery({ project: project.id }, { enabled: local.connected });
  const versionId = branches.data?.find((item) => item.id === branch.id)?.currentVersion?.version;
  if (packages.length === 0) return <EmptyState>{m.store_packages_empty()}</EmptyState>;
  return (
    <ul className="store_packages">
      {packages.map((pkg) => (
        <li key={pkg.id} className="store_package" data-package-id={pkg.id}>
          <StorePackage project={project} branch={branch} versionId={versionId} pkg={pkg} />
        </li>
      ))}
    </ul>
  );
}

type TrpcUtils = ReturnType<typeof trpc.useUtils>;

/** A store package's downloads: signed URLs asked for on use (they expire), never before. */
export function storeDownloadSource(utils: TrpcUtils, input: { project: string; branch: string; package: string }): DownloadSource {
  return {
    zipUrl: async () => (await utils.packageDownloads.storeUrl.fetch({ ...input, filter: 'zip' }, { staleTime: 0 })).url,
    torrent: () => utils.packageDownloads.storeTorrent.fetch(input, { staleTime: 0 }),
  };
}

/** The store project carries each package's summary, so nothing is fetched until a download or an install starts. */
function StorePackage({ project, branch, versionId, pkg }: { project: ProjectRef; branch: StoreBranch; versionId: string | undefined; pkg: StorePackageSummary }) {
  const utils = trpc.useUtils();
  const cloudPlayAllowed = useCloudPlayOfferReasons(pkg.tags).length === 0;
  const input = { project: project.id, branch: branch.id, package: pkg.id };
  const source = storeDownloadSource(utils, input);
  const installable: InstallablePackage | undefined = versionId
    ? {
        projectId: project.id,
        branchId: branch.id,
        versionId,
        packageId: pkg.id,
        projectTitle: project.title,
        branchTitle: branch.title,
        versionTitle: branch.versionTitle,
        packageTitle: pkg.title,
        size: pkg.size ?? 0,
        // The store download route; the summary has no entrypoint, the package record does.
        prepare: async () => {
          const [download, index, record] = await Promise.all([
            utils.packageDownloads.storeUrl.fetch(input, { staleTime: 0 }),
            utils.packageDownloads.storeUrl.fetch({ ...input, filter: 'index' }, { staleTime: 0 }),
            utils.packages.get.fetch({ project: project.id, package: pkg.id }),
          ]);
          return { url: download.url, indexUrl: index.url, entrypoint: record.entrypoint ?? [] };
        },
      }
    : undefined;
  const target: LocalTarget = { packageId: pkg.id, installable };
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
      <ul className="package_launchers store_local_launchers">
        <LocalLaunchers target={target} compact />
      </ul>
    </div>
  );
}
