import { installablePackage, type InstallablePackage } from '../../lib/local-app/install.ts';
import { useLocalApp } from '../../lib/local-app/use-local-app.ts';
import { trpc } from '../../lib/trpc.ts';
import type { StorePackage, StoreProject } from '../../../shared/schemas/store.ts';
import type { DownloadSource } from '../projects/package/package-downloads.tsx';

type StoreBranch = StoreProject['branches'][number];
type TrpcUtils = ReturnType<typeof trpc.useUtils>;
export type ProjectRef = { id: string; title: string };

/** A store package's downloads: signed URLs asked for on use (they expire), never before. */
export function storeDownloadSource(utils: TrpcUtils, input: { project: string; branch: string; package: string }): DownloadSource {
  return {
    zipUrl: async () => (await utils.packageDownloads.storeUrl.fetch({ ...input, filter: 'zip' }, { staleTime: 0 })).url,
    torrent: () => utils.packageDownloads.storeTorrent.fetch(input, { staleTime: 0 }),
  };
}

/**
 * The branch's current version id (the store reply names its title only), which the local app records
 * and compares for Update: asked only once the app is connected (every caller shares the one query).
 */
export function useStoreVersionId(projectId: string, branchId: string): string | undefined {
  const local = useLocalApp({ lists: false });
  const branches = trpc.projects.branches.list.useQuery({ project: projectId }, { enabled: local.connected });
  return branches.data?.find((item) => item.id === branchId)?.currentVersion?.version;
}

/** What the local app needs to install a store package (undefined until the version id is known). */
export function storeInstallable(utils: TrpcUtils, project: ProjectRef, branch: StoreBranch, versionId: string | undefined, pkg: StorePackage): InstallablePackage | undefined {
  if (!versionId) return undefined;
  const input = { project: project.id, branch: branch.id, package: pkg.id };
  // The store download route; the summary has no entrypoint, the package record does.
  return installablePackage({ project, branch, version: { id: versionId, title: branch.versionTitle }, pkg }, async () => {
    const [download, index, record] = await Promise.all([
      utils.packageDownloads.storeUrl.fetch(input, { staleTime: 0 }),
      utils.packageDownloads.storeUrl.fetch({ ...input, filter: 'index' }, { staleTime: 0 }),
      utils.packages.get.fetch({ project: project.id, package: pkg.id }),
    ]);
    return { url: download.url, indexUrl: index.url, entrypoint: record.entrypoint ?? [] };
  });
}
