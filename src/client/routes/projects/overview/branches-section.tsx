import { Link, useLocation } from 'wouter';
import { project_overview_branch_public } from '../../../../shared/i18n/paraglide/messages/project_overview_branch_public.js';
import { project_overview_branches } from '../../../../shared/i18n/paraglide/messages/project_overview_branches.js';
import { project_overview_branches_empty } from '../../../../shared/i18n/paraglide/messages/project_overview_branches_empty.js';
import { project_overview_create } from '../../../../shared/i18n/paraglide/messages/project_overview_create.js';
import { project_overview_current_version } from '../../../../shared/i18n/paraglide/messages/project_overview_current_version.js';
import { project_overview_new_branch } from '../../../../shared/i18n/paraglide/messages/project_overview_new_branch.js';
import { project_overview_no_version } from '../../../../shared/i18n/paraglide/messages/project_overview_no_version.js';
import { project_overview_published } from '../../../../shared/i18n/paraglide/messages/project_overview_published.js';
import { EmptyState, ErrorState, LoadingState } from '../../../components/states.tsx';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { useLanguage } from '../../../lib/i18n/index.ts';
import { trpc } from '../../../lib/trpc.ts';
import { formatDate } from '../../../../shared/format/date.ts';
import type { Branch } from '../../../../shared/schemas/branches.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import { promptBranchTitle } from '../branch-title-prompt.ts';
import { branchHref, versionHref } from '../links.ts';
import { can } from '../project-frame.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  project_overview_branch_public,
  project_overview_branches,
  project_overview_branches_empty,
  project_overview_create,
  project_overview_current_version,
  project_overview_new_branch,
  project_overview_no_version,
  project_overview_published,
};

/** The branches the caller may see (the server filters private ones for outsiders and sorts them). */
export function BranchesSection({ project }: { project: Project }) {
  const dialogs = useDialogs();
  const [, navigate] = useLocation();
  const utils = trpc.useUtils();
  const branches = trpc.projects.branches.list.useQuery({ project: project.id });
  const create = trpc.projects.branches.create.useMutation();

  const startCreate = async () => {
    const branch = await promptBranchTitle(dialogs, {
      title: m.project_overview_new_branch(),
      confirmLabel: m.project_overview_create(),
      initialValue: '',
      branches: () => utils.projects.branches.list.fetch({ project: project.id }, { staleTime: 0 }),
      save: (title) => create.mutateAsync({ project: project.id, title }),
    });
    if (!branch) return;
    await utils.projects.branches.list.invalidate({ project: project.id });
    navigate(branchHref(project.id, branch.id));
  };

  return (
    <section className="section project_overview_branches" aria-labelledby="project-branches">
      <div className="project_overview_section_head">
        <h2 id="project-branches">{m.project_overview_branches()}</h2>
        {can(project, 'createBranch') ? (
          <button type="button" className="button" onClick={() => void startCreate()}>
            {m.project_overview_new_branch()}
          </button>
        ) : null}
      </div>
      {branches.isPending ? <LoadingState /> : null}
      {branches.error ? <ErrorState error={branches.error} onRetry={() => void branches.refetch()} /> : null}
      {branches.data && branches.data.length === 0 ? <EmptyState>{m.project_overview_branches_empty()}</EmptyState> : null}
      {branches.data && branches.data.length > 0 ? (
        <ul className="item_list" aria-labelledby="project-branches">
          {branches.data.map((branch) => (
            <BranchRow key={branch.id} projectId={project.id} branch={branch} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function BranchRow({ projectId, branch }: { projectId: string; branch: Branch }) {
  const { language } = useLanguage();
  const current = branch.currentVersion;
  return (
    <li className="item" data-branch-id={branch.id}>
      <div className="item_main">
        <Link href={branchHref(projectId, branch.id)} className="item_title">
          {branch.title}
        </Link>
        {branch.isPublic ? <span className="badge project_overview_public_badge">{m.project_overview_branch_public()}</span> : null}
        {current ? (
          <dl className="item_facts">
            <div>
              <dt>{m.project_overview_current_version()}</dt>
              <dd>
                <Link href={versionHref(projectId, current.version, branch.id)}>{current.title}</Link>
              </dd>
            </div>
            <div>
              <dt>{m.project_overview_published()}</dt>
              <dd>
                <time dateTime={current.published}>{formatDate(current.published, language)}</time>
              </dd>
            </div>
          </dl>
        ) : (
          <p className="item_facts project_overview_no_version">{m.project_overview_no_version()}</p>
        )}
      </div>
    </li>
  );
}
