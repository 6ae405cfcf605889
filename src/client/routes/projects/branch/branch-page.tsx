import type { ViewProps } from '../../routes.ts';
import { ErrorState, LoadingState } from '../../../components/states.tsx';
import { trpc } from '../../../lib/trpc.ts';
import NotFound from '../../not-found/not-found-page.tsx';
import { ProjectFrame, projectCrumbs } from '../project-frame.tsx';
import { BranchesSidebar } from '../sidebars.tsx';
import { BranchSummary } from './branch-summary.tsx';
import { BranchHistory } from './branch-history.tsx';
import { RetentionSection } from './retention-section.tsx';
import { can } from '../project-frame.tsx';

/** Spec §2 projects/{project}/branches/{branch}: current version, publishing, history, rename, delete, retention. */
export default function BranchPage({ params }: ViewProps) {
  const projectId = params.project ?? '';
  const branchId = params.branch ?? '';
  const branches = trpc.projects.branches.list.useQuery({ project: projectId });
  const branch = branches.data?.find((item) => item.id === branchId);
  // Read here, not only in the closure ProjectFrame calls later: react-query re-renders this page only
  // for the result fields its render read (tracked properties).
  const branchesError = branches.error;
  // A branch that does not exist or that the caller may not see is simply not found (spec §6).
  if (branches.data && !branch) return <NotFound />;
  return (
    <ProjectFrame
      projectId={projectId}
      pageClass="page_branch"
      title={(project) => branch?.title ?? project.title}
      breadcrumb={(project) => (branch ? [...projectCrumbs(project), { label: branch.title }] : projectCrumbs(project))}
      sidebar={() => <BranchesSidebar projectId={projectId} currentBranchId={branchId} />}
    >
      {(project) =>
        branch ? (
          <>
            <BranchSummary project={project} branch={branch} />
            {/* Keyed by the current publish: a new publish starts the paging over from the newest. */}
            <BranchHistory key={branch.currentVersion?.published ?? 'none'} projectId={projectId} branchId={branchId} />
            {can(project, 'deleteVersion') && branch.retention ? <RetentionSection projectId={projectId} branch={branch} /> : null}
          </>
        ) : branchesError ? (
          <ErrorState error={branchesError} onRetry={() => void branches.refetch()} />
        ) : (
          <LoadingState />
        )
      }
    </ProjectFrame>
  );
}
