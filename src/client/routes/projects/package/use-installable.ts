import { package_page_local_needs_branch } from '../../../../shared/i18n/paraglide/messages/package_page_local_needs_branch.js';
import { trpc } from '../../../lib/trpc.ts';
import { installablePackage } from '../../../lib/local-app/install.ts';
import type { Package } from '../../../../shared/schemas/packages.ts';
import type { PackageVia } from './package-actions.tsx';
import type { LocalTarget } from './local-launchers.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { package_page_local_needs_branch };

/**
 * The package page's branch and version for the local app (workdir_transition needs both, Update
 * compares them): the way the page was reached.
 * - branches/{branch}/versions/{version}/packages/{package}: that branch and version.
 * - versions/{version}/packages/{package}: that version, in the branch where it is current (the most
 *   recently published such branch), else the branch it was published in last; none: not installable.
 * - packages/{package}: no version, so not installable (the version page links its packages).
 * The store page installs from its branch's current version (store-packages.tsx).
 */
export function usePackageLocalTarget(project: { id: string; title: string }, pkg: Package, via: PackageVia): LocalTarget {
  const utils = trpc.useUtils();
  const versionId = via.version;
  const version = trpc.projects.versions.get.useQuery({ project: project.id, version: versionId ?? '' }, { enabled: versionId !== undefined });
  const branches = trpc.projects.branches.list.useQuery({ project: project.id }, { enabled: via.branch !== undefined });
  const inBranches = trpc.projects.versions.branches.useQuery({ project: project.id, version: versionId ?? '' }, { enabled: versionId !== undefined && via.branch === undefined });
  const notInstallable: LocalTarget = { packageId: pkg.id, installable: undefined, unavailable: m.package_page_local_needs_branch() };
  if (versionId === undefined || pkg.status !== 'ready') return notInstallable;
  let branch: { id: string; title: string } | undefined;
  if (via.branch !== undefined) {
    const found = branches.data?.find((item) => item.id === via.branch);
    if (found) branch = { id: found.id, title: found.title };
  } else if (inBranches.data) {
    const chosen = inBranches.data.find((item) => item.isCurrent) ?? inBranches.data[0];
    if (!chosen) return notInstallable;
    branch = { id: chosen.branchId, title: chosen.branchTitle };
  }
  if (!branch || !version.data) return { packageId: pkg.id, installable: undefined };
  const installable = installablePackage({ project, branch, version: { id: versionId, title: version.data.title }, pkg }, async () => {
    const [archive, index] = await Promise.all([
      utils.packageDownloads.url.fetch({ project: project.id, package: pkg.id }, { staleTime: 0 }),
      utils.packageDownloads.url.fetch({ project: project.id, package: pkg.id, filter: 'index' }, { staleTime: 0 }),
    ]);
    return { url: archive.url, indexUrl: index.url, entrypoint: pkg.entrypoint ?? [] };
  });
  return { packageId: pkg.id, installable };
}
