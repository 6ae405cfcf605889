import { packages_crumb } from '../../../../shared/i18n/paraglide/messages/packages_crumb.js';
import { packages_page_title } from '../../../../shared/i18n/paraglide/messages/packages_page_title.js';
import type { ViewProps } from '../../routes.ts';
import { ProjectFrame, projectCrumbs } from '../project-frame.tsx';
import { ProjectsSidebar } from '../sidebars.tsx';
import { ProjectPackages } from './project-packages.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { packages_crumb, packages_page_title };

/**
 * projects/{project}/packages (issue 29): every package of the project the caller may see, newest first,
 * with the versions each is in, searchable; admins delete those in no version.
 */
export default function PackagesPage({ params }: ViewProps) {
  const projectId = params.project ?? '';
  return (
    <ProjectFrame
      projectId={projectId}
      pageClass="page_packages"
      title={(project) => m.packages_page_title({ project: project.title })}
      breadcrumb={(project) => [...projectCrumbs(project), { label: m.packages_crumb() }]}
      sidebar={(project) => <ProjectsSidebar project={project} />}
    >
      {(project) => <ProjectPackages project={project} />}
    </ProjectFrame>
  );
}
