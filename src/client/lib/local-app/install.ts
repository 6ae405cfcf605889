import type { QueryClient } from '@tanstack/react-query';
import type { Workdir } from '../../../shared/schemas/local-helper.ts';
import { callHelper } from './helper.ts';
import { invalidateLocalApp, type TransitionKind } from './use-local-app.ts';

/**
 * The install flow (spec §4): into an existing workdir, or a new one (workdir_add in a workspace), then
 * workdir_transition with a fresh signed URL of the package's archive; the helper answers at once and
 * the page follows transition_status. An update is the same transition on the workdir holding the
 * branch.
 */

/**
 * What the helper needs of a package (spec §7 workdir_transition); the archive URL (and, where the page
 * does not have it yet, the entrypoint) are fetched when the install starts.
 */
export type InstallablePackage = {
  projectId: string;
  branchId: string;
  versionId: string;
  packageId: string;
  projectTitle: string;
  branchTitle: string;
  versionTitle: string;
  packageTitle: string;
  /** Bytes of the files (0 when unknown). */
  size: number;
  /**
   * Fresh signed URLs of the archive (GET .../download without a filter: the project or the store
   * route) and of its index (filter=index: an update then receives only an index delta), and the
   * package's entrypoint as path parts (empty when it has none).
   */
  prepare(): Promise<{ url: string; indexUrl: string; entrypoint: string[] }>;
};

type Named = { id: string; title: string };

/** The package page's and the store's installable: ids and titles of the four, and where its URLs come from. */
export function installablePackage(
  of: { project: Named; branch: Named; version: Named; pkg: Named & { size: number | null } },
  prepare: InstallablePackage['prepare'],
): InstallablePackage {
  return {
    projectId: of.project.id,
    branchId: of.branch.id,
    versionId: of.version.id,
    packageId: of.pkg.id,
    projectTitle: of.project.title,
    branchTitle: of.branch.title,
    versionTitle: of.version.title,
    packageTitle: of.pkg.title,
    size: of.pkg.size ?? 0,
    prepare,
  };
}

/** Where to install: an existing workdir, or a new folder `name` in a workspace. */
export type InstallTarget = { workdir: string } | { workspace: string; name: string };

/** spec §5: the workspace of the last install, offered first next time. */
const LAST_WORKSPACE_KEY = 'last_install_workspace_id';

export function rememberedWorkspace(): string | null {
  try {
    return localStorage.getItem(LAST_WORKSPACE_KEY);
  } catch {
    return null;
  }
}

export function rememberWorkspace(id: string): void {
  try {
    localStorage.setItem(LAST_WORKSPACE_KEY, id);
  } catch {
    // Storage refused (private mode): only the convenience is lost.
  }
}

/** Makes the workdir hold `pkg` (install, update or resume); returns the workdir's id. */
export async function transitionTo(queryClient: QueryClient, pkg: InstallablePackage, target: InstallTarget, kind: TransitionKind = 'install'): Promise<string> {
  const id = 'workdir' in target ? target.workdir : (await callHelper('workdir_add', { workspace: target.workspace, name: target.name })).id;
  if (!('workdir' in target)) void invalidateLocalApp(queryClient);
  const prepared = await pkg.prepare();
  await callHelper('workdir_transition', {
    id,
    package_url: prepared.url,
    index_url: prepared.indexUrl,
    project_id: pkg.projectId,
    branch_id: pkg.branchId,
    version_id: pkg.versionId,
    package_id: pkg.packageId,
    project_title: pkg.projectTitle,
    branch_title: pkg.branchTitle,
    version_title: pkg.versionTitle,
    package_title: pkg.packageTitle,
    package_size: Math.max(0, Math.round(pkg.size)),
    package_entrypoint: prepared.entrypoint,
  });
  // The lists are fetched again in the background: the caller (the dialog) closes at once.
  void invalidateLocalApp(queryClient, { id, kind });
  return id;
}

/** The helper's own folder in a workspace: never a workdir's name. */
const privateFolderName = '.cartridge';
const forbidden = /[<>:"/\\|?*\u0000-\u001f\u007f]+/g;
const reserved = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
const maxNameLength = 80;

/**
 * A folder name every system accepts, made from titles people typed: no separators or characters
 * Windows refuses, no trailing dot or space, not a reserved device name, at most 80 characters.
 */
export function safeFolderName(text: string): string {
  let name = text.normalize('NFC').replace(forbidden, ' ').replace(/\s+/g, ' ').trim();
  name = [...name].slice(0, maxNameLength).join('');
  name = name.replace(/[. ]+$/, '').replace(/^[. ]+/, '');
  if (reserved.test(name)) name = `${name} game`;
  if (name === '' || name.toLowerCase() === privateFolderName) name = 'game';
  return name;
}

/** The default folder of a new workdir: project and package titles, numbered when the workspace has it. */
export function defaultFolderName(projectTitle: string, packageTitle: string, taken: readonly string[]): string {
  const base = safeFolderName(packageTitle.toLowerCase().includes(projectTitle.toLowerCase()) ? packageTitle : `${projectTitle} ${packageTitle}`);
  const used = new Set(taken.map((name) => name.normalize('NFC').toLowerCase()));
  if (!used.has(base.toLowerCase())) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base} (${n})`;
    if (!used.has(candidate.toLowerCase())) return candidate;
  }
}

/** The folder name of a workdir (the last part of its path). */
export function folderNameOf(workdir: Pick<Workdir, 'local_path'>): string {
  return workdir.local_path.split(/[/\\]/).filter(Boolean).pop() ?? workdir.local_path;
}

/** This package installed (Launch): the workdir holding it, installed. */
export function installedWorkdir(workdirs: readonly Workdir[], packageId: string): Workdir | undefined {
  return workdirs.find((workdir) => workdir.package_id === packageId && workdir.state === 'installed');
}

/** A package title without its version's title ('1.0.1 Linux' of 1.0.1 → 'linux'): the build it is, across versions. */
function buildName(packageTitle: string, versionTitle: string): string {
  return (versionTitle ? packageTitle.replace(versionTitle, '') : packageTitle).trim().toLowerCase();
}

/**
 * What Update replaces (spec §4 "Update if the same branch is installed"): a workdir holding another
 * version of the branch; of several, the one of the same build (its package title without the version
 * title, as the one package naming rule makes it: '1.0.0 Linux' → '1.0.1 Linux'), else the first.
 */
export function updatableWorkdir(workdirs: readonly Workdir[], pkg: Pick<InstallablePackage, 'branchId' | 'versionId' | 'packageTitle' | 'versionTitle'>): Workdir | undefined {
  const candidates = workdirs.filter((workdir) => workdir.branch_id === pkg.branchId && workdir.version_id !== undefined && workdir.version_id !== pkg.versionId && workdir.state !== 'empty');
  const build = buildName(pkg.packageTitle, pkg.versionTitle);
  return candidates.find((workdir) => buildName(workdir.package_title ?? '', workdir.version_title ?? '') === build) ?? candidates[0];
}
