import type { Crumb } from '../../../components/page.tsx';
import { toDisplayError } from '../../../lib/errors.ts';
import { trpc } from '../../../lib/trpc.ts';
import type { Package } from '../../../../shared/schemas/packages.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import { packages_crumb } from '../../../../shared/i18n/paraglide/messages/packages_crumb.js';
import { branchHref, packageHref, packagesHref, versionHref } from '../links.ts';
import { projectCrumbs } from '../project-frame.tsx';
import type { PackageVia } from './package-actions.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { packages_crumb };

export type PackageRoute = {
  projectId: string;
  packageId: string;
  via: PackageVia;
  /** The package (its title follows the one naming rule, src/shared/packages/package-name.ts, wherever it is reached from). */
  pkg: Package | undefined;
  query: { error: unknown; refetch: () => unknown };
  branchTitle: string | undefined;
  versionTitle: string | undefined;
  /** Unknown package, version or branch, or the package is not in the version it was reached through. */
  notFound: boolean;
};

/** Loads what the package pages (details and play) share: the package and the way it was reached. */
export function usePackageRoute(params: Record<string, string>): PackageRoute {
  const projectId = params.project ?? '';
  const packageId = params.package ?? '';
  const via: PackageVia = { version: params.version, branch: params.branch };
  const query = trpc.packages.get.useQuery({ project: projectId, package: packageId });
  const versionPackages = trpc.packages.ofVersion.useQuery({ project: projectId, version: via.version ?? '' }, { enabled: via.version !== undefined });
  const version = trpc.projects.versions.get.useQuery({ project: projectId, version: via.version ?? '' }, { enabled: via.version !== undefined });
  const branches = trpc.projects.branches.list.useQuery({ project: projectId }, { enabled: via.branch !== undefined });
  const branch = via.branch ? branches.data?.find((item) => item.id === via.branch) : undefined;
  const inVersion = versionPackages.data?.find((item) => item.id === packageId);
  const isNotFound = (error: unknown) => error !== null && error !== undefined && toDisplayError(error).code === 'not_found';
  const notFound =
    isNotFound(query.error) ||
    isNotFound(version.error) ||
    isNotFound(versionPackages.error) ||
    (via.branch !== undefined && branches.data !== undefined && !branch) ||
    (via.version !== undefined && versionPackages.data !== undefined && !inVersion);
  const pkg = query.data && inVersion ? query.data : via.version === undefined ? query.data : versionPackages.error ? query.data : undefined;
  return { projectId, packageId, via, pkg, query, branchTitle: branch?.title, versionTitle: version.data?.title, notFound };
}

/** Home › Projects › {project} [› {branch}] [› {version}] (or › Packages) › {package} [› extra]. */
export function packageCrumbs(project: Project, route: PackageRoute, extra?: Crumb): Crumb[] {
  const crumbs = projectCrumbs(project);
  const { via } = route;
  if (!via.branch && !via.version) crumbs.push({ label: m.packages_crumb(), href: packagesHref(project.id) });
  if (via.branch && route.branchTitle) crumbs.push({ label: route.branchTitle, href: branchHref(project.id, via.branch) });
  if (via.version && route.versionTitle) crumbs.push({ label: route.versionTitle, href: versionHref(project.id, via.version, via.branch) });
  if (route.pkg) crumbs.push({ label: route.pkg.title, href: extra ? packageHref(project.id, route.packageId, via) : undefined });
  if (extra) crumbs.push(extra);
  return crumbs;
}
