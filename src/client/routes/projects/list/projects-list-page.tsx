import { useEffect } from 'react';
import { Link, useLocation } from 'wouter';
import { projects_list_empty } from '../../../../shared/i18n/paraglide/messages/projects_list_empty.js';
import { projects_list_new } from '../../../../shared/i18n/paraglide/messages/projects_list_new.js';
import { projects_list_public } from '../../../../shared/i18n/paraglide/messages/projects_list_public.js';
import { projects_list_role_label } from '../../../../shared/i18n/paraglide/messages/projects_list_role_label.js';
import { projects_title } from '../../../../shared/i18n/paraglide/messages/projects_title.js';
import { homeCrumb, Page } from '../../../components/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../../../components/states.tsx';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { useAuth } from '../../../lib/auth/auth.tsx';
import { rememberReturnTo } from '../../../lib/auth/return-to.ts';
import { trpc } from '../../../lib/trpc.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import type { ViewProps } from '../../routes.ts';
import { projectHref, storeHref } from '../links.ts';
import { roleLabel } from '../role-label.ts';
import { NewProjectDialog } from './new-project-dialog.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { projects_list_empty, projects_list_new, projects_list_public, projects_list_role_label, projects_title };

/** Spec §2 'projects': the caller's projects (member of, or starred public ones) with their role. */
export default function ProjectsListPage(_props: ViewProps) {
  const auth = useAuth();
  const [, navigate] = useLocation();
  const dialogs = useDialogs();
  const signedIn = auth.status === 'authenticated';
  const projects = trpc.projects.mine.useQuery(undefined, { enabled: signedIn });
  const mayCreate = auth.session?.userPrivileges.includes('create_project') ?? false;

  useEffect(() => {
    if (auth.status === 'not_authenticated') {
      rememberReturnTo();
      navigate('/login', { replace: true });
    }
  }, [auth.status, navigate]);

  const startCreate = async () => {
    const project = await dialogs.open<Project | null>((close) => <NewProjectDialog onClose={close} />);
    if (project) navigate(projectHref(project.id));
  };

  return (
    <Page title={m.projects_title()} breadcrumb={[homeCrumb(), { label: m.projects_title() }]} pageClass="page_projects">
      <div className="projects_list_head">
        <h1>{m.projects_title()}</h1>
        {signedIn && mayCreate ? (
          <button type="button" className="button button_primary" onClick={() => void startCreate()}>
            {m.projects_list_new()}
          </button>
        ) : null}
      </div>
      {!signedIn || projects.isPending ? <LoadingState /> : null}
      {projects.error ? <ErrorState error={projects.error} onRetry={() => void projects.refetch()} /> : null}
      {projects.data && projects.data.length === 0 ? <EmptyState icon="packages">{m.projects_list_empty()}</EmptyState> : null}
      {projects.data && projects.data.length > 0 ? (
        <ul className="item_list projects_list" aria-label={m.projects_title()}>
          {projects.data.map((project) => (
            <ProjectRow key={project.id} project={project} />
          ))}
        </ul>
      ) : null}
    </Page>
  );
}

function ProjectRow({ project }: { project: Project }) {
  return (
    <li className="item projects_list_item" data-project-id={project.id}>
      <div className="item_main projects_list_main">
        <Link href={projectHref(project.id)} className="item_title projects_list_title">
          {project.title}
        </Link>
        {project.isPublic ? (
          <Link href={storeHref(project.id)} className="projects_list_store" title={m.projects_list_public()}>
            <StoreIcon />
            <span className="visually_hidden">{m.projects_list_public()}</span>
          </Link>
        ) : null}
      </div>
      {project.userRole ? (
        <span className="badge projects_list_role">
          <span className="visually_hidden">{m.projects_list_role_label()}: </span>
          {roleLabel(project.userRole, project.userIsOwner)}
        </span>
      ) : null}
    </li>
  );
}

/** A shop front: awning and door. */
function StoreIcon() {
  return (
    <svg className="projects_list_store_icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <path d="M4 4h16l1.5 5a3 3 0 0 1-5.5 1.7A3 3 0 0 1 12 12a3 3 0 0 1-4-1.3A3 3 0 0 1 2.5 9z" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinejoin="round" />
      <path d="M4.5 12v8h15v-8M10 20v-5h4v5" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinejoin="round" />
    </svg>
  );
}
