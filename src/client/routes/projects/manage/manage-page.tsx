import { manage_crumb } from '../../../../shared/i18n/paraglide/messages/manage_crumb.js';
import { manage_page_title } from '../../../../shared/i18n/paraglide/messages/manage_page_title.js';
import { trpc } from '../../../lib/trpc.ts';
import { projectRoleNames, type Project } from '../../../../shared/schemas/projects.ts';
import type { ViewProps } from '../../routes.ts';
import NotFound from '../../not-found/not-found-page.tsx';
import { can, ProjectFrame, projectCrumbs } from '../project-frame.tsx';
import { ProjectsSidebar } from '../sidebars.tsx';
import { DeploySitesSection } from './deploy-sites-section.tsx';
import { DeleteProjectSection } from './delete-project-section.tsx';
import { GeneralSection } from './general-section.tsx';
import { InviteLinksSection } from './invite-links-section.tsx';
import { LeaveSection } from './leave-section.tsx';
import { MembersSection } from './members-section.tsx';
import { OneTimeInviteSection } from './one-time-invite-section.tsx';
import { PublicAccessSection } from './public-access-section.tsx';
import { PublicBranchesSection } from './public-branches-section.tsx';
import { StoreTagsSection } from './store-tags-section.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { manage_crumb, manage_page_title };

/** Approved members only: visitors, outsiders and stargazers of a public project have nothing to manage here. */
function isMember(project: Project): boolean {
  return (projectRoleNames as readonly string[]).includes(project.userRole ?? '');
}

/**
 * Spec §2 'projects/{project}/manage': every section shows only when the caller can act in it
 * (userPossibleActions); the team list shows read-only to any member.
 */
export default function ManagePage({ params }: ViewProps) {
  const projectId = params.project ?? '';
  // The same query ProjectFrame runs (shared cache): a project the caller merely sees is not theirs to manage.
  const project = trpc.projects.get.useQuery({ project: projectId });
  if (project.data && !isMember(project.data)) return <NotFound />;
  return (
    <ProjectFrame
      projectId={projectId}
      pageClass="page_manage"
      title={(loaded) => m.manage_page_title({ project: loaded.title })}
      breadcrumb={(loaded) => [...projectCrumbs(loaded), { label: m.manage_crumb() }]}
      sidebar={(loaded) => <ProjectsSidebar project={loaded} />}
    >
      {(loaded) => (
        <>
          <h1>{m.manage_page_title({ project: loaded.title })}</h1>
          {can(loaded, 'patchProject') ? (
            <>
              <GeneralSection project={loaded} />
              <PublicAccessSection project={loaded} />
              <PublicBranchesSection project={loaded} />
              <StoreTagsSection project={loaded} />
            </>
          ) : null}
          <MembersSection project={loaded} />
          {can(loaded, 'createInvite') ? (
            <>
              <OneTimeInviteSection project={loaded} />
              <InviteLinksSection project={loaded} />
            </>
          ) : null}
          <DeploySitesSection project={loaded} />
          {can(loaded, 'leaveProject') ? <LeaveSection project={loaded} /> : null}
          {can(loaded, 'deleteProject') ? <DeleteProjectSection project={loaded} /> : null}
        </>
      )}
    </ProjectFrame>
  );
}
