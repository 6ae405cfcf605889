import type { ViewProps } from '../../routes.ts';
import { ErrorState, LoadingState } from '../../../components/states.tsx';
import type { Crumb } from '../../../components/page.tsx';
import { toDisplayError } from '../../../lib/errors.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import NotFound from '../../not-found/not-found-page.tsx';
import { ProjectFrame } from '../project-frame.tsx';
import { PackagesSidebar } from '../sidebars.tsx';
import { PackageActions } from './package-actions.tsx';
import { PackageFacts, PackageSections } from './package-details.tsx';
import { packageCrumbs, usePackageRoute } from './package-route.ts';

/**
 * Spec §2 projects/{project}/packages/{package}, also reached through versions/{version} and
 * branches/{branch}/versions/{version}: the same page; the trail and the sidebar keep the way in.
 */
export default function PackagePage({ params }: ViewProps) {
  const route = usePackageRoute(params);
  const { projectId, via, pkg, query } = route;
  if (route.notFound) return <NotFound />;
  const breadcrumb = (project: Project): Crumb[] => packageCrumbs(project, route);
  return (
    <ProjectFrame
      projectId={projectId}
      pageClass="page_package"
      title={(project) => pkg?.title ?? project.title}
      breadcrumb={breadcrumb}
      sidebar={() => <PackagesSidebar projectId={projectId} versionId={via.version} branchId={via.branch} currentPackageId={route.packageId} />}
    >
      {(project) =>
        pkg ? (
          <>
            <h1 data-testid="package-title">
              <bdi>{pkg.title}</bdi>
            </h1>
            <PackageActions project={project} pkg={pkg} via={via} />
            <PackageFacts pkg={pkg} />
            <PackageSections project={project} pkg={pkg} via={via} />
          </>
        ) : query.error && toDisplayError(query.error).code !== 'not_found' ? (
          <ErrorState error={query.error} onRetry={() => void query.refetch()} />
        ) : (
          <LoadingState />
        )
      }
    </ProjectFrame>
  );
}
