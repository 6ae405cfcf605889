import { useId, type ReactNode } from 'react';
import { Link } from 'wouter';
import { project_sidebar_branches } from '../../../shared/i18n/paraglide/messages/project_sidebar_branches.js';
import { project_sidebar_empty } from '../../../shared/i18n/paraglide/messages/project_sidebar_empty.js';
import { project_sidebar_versions } from '../../../shared/i18n/paraglide/messages/project_sidebar_versions.js';
import { invite_page_awaiting } from '../../../shared/i18n/paraglide/messages/invite_page_awaiting.js';
import { package_page_sidebar } from '../../../shared/i18n/paraglide/messages/package_page_sidebar.js';
import { projects_list_empty } from '../../../shared/i18n/paraglide/messages/projects_list_empty.js';
import { projects_title } from '../../../shared/i18n/paraglide/messages/projects_title.js';
import { PackageDetails } from '../../components/package-facts.tsx';
import { EmptyState, ErrorState, LoadingState } from '../../components/states.tsx';
import { useAuth } from '../../lib/auth/auth.tsx';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import { trpc } from '../../lib/trpc.ts';
import type { Package } from '../../../shared/schemas/packages.ts';
import type { Project } from '../../../shared/schemas/projects.ts';
import { branchHref, packageHref, projectHref, versionHref } from './links.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { invite_page_awaiting, package_page_sidebar, project_sidebar_branches, project_sidebar_empty, project_sidebar_versions, projects_list_empty, projects_title };

/** `detail`: a secondary line that tells apart items of one name (packages). */
type SidebarItem = { id: string; title: string; href: string; detail?: ReactNode };

type SidebarListProps = {
  label: string;
  items: SidebarItem[] | undefined;
  currentId?: string;
  query: { error: unknown; refetch: () => unknown };
  /** Shown above the list; an empty list then says nothing more. */
  note?: ReactNode;
  emptyText?: string;
};

/** A labelled list of sibling pages; the current one is marked (aria-current) rather than linked. */
function SidebarList({ label, items, currentId, query, note, emptyText }: SidebarListProps) {
  const headingId = useId();
  return (
    <nav className="sidebar_nav" aria-labelledby={headingId}>
      <h2 id={headingId} className="sidebar_heading">
        {label}
      </h2>
      {note ? <p className="sidebar_note">{note}</p> : null}
      {query.error ? <ErrorState error={query.error} onRetry={() => void query.refetch()} /> : null}
      {!items && !query.error ? <LoadingState /> : null}
      {items && items.length === 0 && !note ? (
        <EmptyState compact>{emptyText ?? m.project_sidebar_empty()}</EmptyState>
      ) : null}
      {items && items.length > 0 ? (
        <ul className="sidebar_list">
          {items.map((item) => (
            <li key={item.id}>
              <Link href={item.href} aria-current={item.id === currentId ? 'page' : undefined} className="sidebar_link">
                <bdi>{item.title}</bdi>
                {item.detail}
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
    </nav>
  );
}

/**
 * The caller's projects; nothing for visitors, who have no project list. A member waiting for approval
 * is told so (the project is not in their list yet); someone viewing a project that is not theirs with
 * no projects of their own reads that, not an empty-state that seems to be about this project.
 */
export function ProjectsSidebar({ project }: { project: Project }) {
  const auth = useAuth();
  const query = trpc.projects.mine.useQuery(undefined, { enabled: auth.status === 'authenticated' });
  if (auth.status !== 'authenticated') return null;
  const items = query.data?.map((mine) => ({ id: mine.id, title: mine.title, href: projectHref(mine.id) }));
  const note = project.userIsPending ? rich(m.invite_page_awaiting({ project: slot('project') }), { project: <bdi>{project.title}</bdi> }) : undefined;
  return (
    <SidebarList
      label={m.projects_title()}
      items={items}
      currentId={project.id}
      query={query}
      note={note}
      emptyText={project.userIsListed ? undefined : m.projects_list_empty()}
    />
  );
}

export function BranchesSidebar({ projectId, currentBranchId }: { projectId: string; currentBranchId?: string }) {
  const query = trpc.projects.branches.list.useQuery({ project: projectId });
  const items = query.data?.map((branch) => ({ id: branch.id, title: branch.title, href: branchHref(projectId, branch.id) }));
  return <SidebarList label={m.project_sidebar_branches()} items={items} currentId={currentBranchId} query={query} />;
}

export function VersionsSidebar({ projectId, currentVersionId }: { projectId: string; currentVersionId?: string }) {
  const query = trpc.projects.versions.list.useQuery({ project: projectId });
  const items = query.data?.map((version) => ({ id: version.id, title: version.title, href: versionHref(projectId, version.id) }));
  return <SidebarList label={m.project_sidebar_versions()} items={items} currentId={currentVersionId} query={query} />;
}

/**
 * Sibling packages: of the version when the page was reached through one, else of the project. Builds
 * for one platform share a name: each row says when it was uploaded and its size (in a version) or the
 * versions it is in (of the project).
 */
export function PackagesSidebar({ projectId, versionId, branchId, currentPackageId }: { projectId: string; versionId?: string; branchId?: string; currentPackageId?: string }) {
  const ofVersion = trpc.packages.ofVersion.useQuery({ project: projectId, version: versionId ?? '' }, { enabled: versionId !== undefined });
  const ofProject = trpc.packages.list.useQuery({ project: projectId }, { enabled: versionId === undefined });
  const via = { version: versionId, branch: branchId };
  const item = (pkg: Package, detail: ReactNode): SidebarItem => ({ id: pkg.id, title: pkg.title, href: packageHref(projectId, pkg.id, via), detail });
  const query = versionId !== undefined ? ofVersion : ofProject;
  const items =
    versionId !== undefined
      ? ofVersion.data?.map((pkg) => item(pkg, <PackageDetails pkg={pkg} facts={['uploaded', 'size']} className="sidebar_detail" />))
      : ofProject.data?.map((pkg) => item(pkg, <PackageDetails pkg={pkg} facts={['versions', 'uploaded']} className="sidebar_detail" />));
  return <SidebarList label={m.package_page_sidebar()} items={items} currentId={currentPackageId} query={query} />;
}
