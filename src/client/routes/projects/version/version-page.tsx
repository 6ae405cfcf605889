import { useState } from 'react';
import type { ViewProps } from '../../routes.ts';
import { ErrorState, LoadingState } from '../../../components/states.tsx';
import type { Crumb } from '../../../components/page.tsx';
import { toDisplayError } from '../../../lib/errors.ts';
import { trpc } from '../../../lib/trpc.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import NotFound from '../../not-found/not-found-page.tsx';
import { branchHref } from '../links.ts';
import { ProjectFrame, projectCrumbs } from '../project-frame.tsx';
import { VersionsSidebar } from '../sidebars.tsx';
import { VersionActions } from './version-actions.tsx';
import { VersionBranches } from './version-branches.tsx';
import { VersionDeploys } from './version-deploys.tsx';
import { VersionDetails } from './version-details.tsx';

/**
 * Spec §2 projects/{project}/versions/{version} and .../branches/{branch}/versions/{version}: the same
 * page; reached through a branch, the trail keeps the branch.
 */
export default function VersionPage({ params }: ViewProps) {
  const projectId = params.project ?? '';
  const versionId = params.version ?? '';
  const branchId = params.branch;
  // Bumped after a repost: the 'branches it is in' paging starts over from the newest publish.
  const [publishCount, setPublishCount] = useState(0);
  const version = trpc.projects.versions.get.useQuery({ project: projectId, version: versionId });
  const branches = trpc.projects.branches.list.useQuery({ project: projectId }, { enabled: branchId !== undefined });
  const branch = branchId ? branches.data?.find((item) => item.id === branchId) : undefined;
  // Read here, not only in the closures ProjectFrame calls later: react-query re-renders this page only
  // for the result fields its render read (tracked properties).
  const versionData = version.data;
  if (version.error && toDisplayError(version.error).code === 'not_found') return <NotFound />;
  if (branchId && branches.data && !branch) return <NotFound />;

  const breadcrumb = (project: Project): Crumb[] => {
    const crumbs = projectCrumbs(project);
    if (branch) crumbs.push({ label: branch.title, href: branchHref(projectId, branch.id) });
    if (versionData) crumbs.push({ label: versionData.title });
    return crumbs;
  };
  return (
    <ProjectFrame
      projectId={projectId}
      pageClass="page_version"
      title={(project) => versionData?.title ?? project.title}
      breadcrumb={breadcrumb}
      sidebar={() => <VersionsSidebar projectId={projectId} currentVersionId={versionId} />}
    >
      {(project) =>
        versionData ? (
          <>
            <VersionDetails version={versionData} projectId={projectId} branchId={branchId} />
            <VersionActions project={project} version={versionData} onPublished={() => setPublishCount((count) => count + 1)} />
            <VersionBranches key={`${versionData.id}-${publishCount}`} projectId={projectId} versionId={versionId} />
            <VersionDeploys project={project} versionId={versionData.id} />
          </>
        ) : version.error ? (
          <ErrorState error={version.error} onRetry={() => void version.refetch()} />
        ) : (
          <LoadingState />
        )
      }
    </ProjectFrame>
  );
}
