import type { ReactNode } from 'react';
import { projects_title } from '../../../shared/i18n/paraglide/messages/projects_title.js';
import { homeCrumb, Page, type Crumb } from '../../components/page.tsx';
import { ErrorState, LoadingState } from '../../components/states.tsx';
import { toDisplayError } from '../../lib/errors.ts';
import { trpc } from '../../lib/trpc.ts';
import type { Project, ProjectAction } from '../../../shared/schemas/projects.ts';
import NotFound from '../not-found/not-found-page.tsx';
import { projectHref, projectsHref } from './links.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { projects_title };

/** Menus and buttons follow userPossibleActions (spec §6); a menu with none is hidden. */
export function can(project: Project, action: ProjectAction): boolean {
  return project.userPossibleActions.includes(action);
}

/** Home › Projects › {project}: the start of every project screen's trail. */
export function projectCrumbs(project: Pick<Project, 'id' | 'title'>): Crumb[] {
  return [homeCrumb(), { label: m.projects_title(), href: projectsHref }, { label: project.title, href: projectHref(project.id) }];
}

export type ProjectFrameProps = {
  projectId: string;
  pageClass: string;
  /** The page title once the project is loaded. */
  title: (project: Project) => string;
  /** The breadcrumb once the project is loaded; projectCrumbs(project) plus the page's own crumbs. */
  breadcrumb: (project: Project) => Crumb[];
  /** The sidebar (sibling projects, branches or versions); none when omitted. */
  sidebar?: (project: Project) => ReactNode;
  children: (project: Project) => ReactNode;
};

/**
 * Every screen under projects/{project}: loads the project (what the caller may do with it included),
 * shows loading and error states, the not-found page when the project is unknown or private to the
 * caller (the server never tells which), then the page with its sidebar.
 */
export function ProjectFrame({ projectId, pageClass, title, breadcrumb, sidebar, children }: ProjectFrameProps) {
  const query = trpc.projects.get.useQuery({ project: projectId });
  if (query.error && toDisplayError(query.error).code === 'not_found') return <NotFound />;
  const project = query.data;
  if (!project) {
    const crumbs = [homeCrumb(), { label: m.projects_title(), href: projectsHref }];
    return (
      <Page title={m.projects_title()} breadcrumb={crumbs} pageClass={pageClass}>
        {query.error ? <ErrorState error={query.error} onRetry={() => void query.refetch()} /> : <LoadingState />}
      </Page>
    );
  }
  return (
    <Page title={title(project)} breadcrumb={breadcrumb(project)} pageClass={pageClass}>
      {/* The content (with the page's h1) comes first: on a phone it stacks above the sidebar, and it is
          read first; on a wide screen the sidebar is drawn beside it on the start side (CSS grid). */}
      <div className={sidebar ? 'with_sidebar' : undefined}>
        <div className="with_sidebar_main">{children(project)}</div>
        {sidebar ? <aside className="sidebar">{sidebar(project)}</aside> : null}
      </div>
    </Page>
  );
}
