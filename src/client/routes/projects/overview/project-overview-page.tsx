import { Link } from 'wouter';
import { project_overview_private } from '../../../../shared/i18n/paraglide/messages/project_overview_private.js';
import { project_overview_public } from '../../../../shared/i18n/paraglide/messages/project_overview_public.js';
import { project_overview_role } from '../../../../shared/i18n/paraglide/messages/project_overview_role.js';
import { project_overview_settings } from '../../../../shared/i18n/paraglide/messages/project_overview_settings.js';
import { project_overview_store_link } from '../../../../shared/i18n/paraglide/messages/project_overview_store_link.js';
import { project_overview_visibility } from '../../../../shared/i18n/paraglide/messages/project_overview_visibility.js';
import { packages_crumb } from '../../../../shared/i18n/paraglide/messages/packages_crumb.js';
import type { Project } from '../../../../shared/schemas/projects.ts';
import type { ViewProps } from '../../routes.ts';
import { manageHref, packagesHref, storeHref } from '../links.ts';
import { ProjectFrame, projectCrumbs } from '../project-frame.tsx';
import { roleLabel } from '../role-label.ts';
import { ProjectsSidebar } from '../sidebars.tsx';
import { BranchesSection } from './branches-section.tsx';
import { DescriptionSection } from './description-section.tsx';
import { MediaSection } from './media/media-section.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { packages_crumb, project_overview_private, project_overview_public, project_overview_role, project_overview_settings, project_overview_store_link, project_overview_visibility };

/** Spec §2 'projects/{project}': description, store link, packages and settings links, branches; the store page's cover and screenshots (issue 19). */
export default function ProjectOverviewPage({ params }: ViewProps) {
  const projectId = params.project ?? '';
  return (
    <ProjectFrame
      projectId={projectId}
      pageClass="page_project_overview"
      title={(project) => project.title}
      breadcrumb={(project) => projectCrumbs(project)}
      sidebar={(project) => <ProjectsSidebar project={project} />}
    >
      {(project) => <Overview project={project} />}
    </ProjectFrame>
  );
}

/** A member (any role, or the owner) reaches the settings; a stargazer or a visitor does not. */
function isMember(project: Project): boolean {
  return project.userIsOwner || (project.userRole !== null && project.userRole !== 'starred');
}

function Overview({ project }: { project: Project }) {
  return (
    <>
      <div className="project_overview_head">
        <h1>
          <bdi>{project.title}</bdi>
        </h1>
        <div className="actions">
          {project.isPublic ? (
            <Link href={storeHref(project.id)} className="button">
              {m.project_overview_store_link()}
            </Link>
          ) : null}
          <Link href={packagesHref(project.id)} className="button">
            {m.packages_crumb()}
          </Link>
          {isMember(project) ? (
            <Link href={manageHref(project.id)} className="button">
              {m.project_overview_settings()}
            </Link>
          ) : null}
        </div>
      </div>
      <dl className="facts">
        {project.userRole ? (
          <div>
            <dt>{m.project_overview_role()}</dt>
            <dd data-testid="project-role">{roleLabel(project.userRole, project.userIsOwner)}</dd>
          </div>
        ) : null}
        <div>
          <dt>{m.project_overview_visibility()}</dt>
          <dd>{project.isPublic ? m.project_overview_public() : m.project_overview_private()}</dd>
        </div>
      </dl>
      <MediaSection project={project} />
      <DescriptionSection project={project} />
      <BranchesSection project={project} />
    </>
  );
}
