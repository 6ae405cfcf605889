import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { play_page_back } from '../../../../shared/i18n/paraglide/messages/play_page_back.js';
import { ErrorState, LoadingState } from '../../../components/states.tsx';
import type { Package } from '../../../../shared/schemas/packages.ts';
import NotFound from '../../not-found/not-found-page.tsx';
import { packageHref } from '../links.ts';
import { ProjectFrame } from '../project-frame.tsx';
import { packageCrumbs, type PackageRoute } from './package-route.ts';

/**
 * The frame the package's game pages share (play in the browser, play in the cloud): not-found, the
 * project frame with the page's title in it and in the breadcrumb, loading and error states, and the
 * link back to the package; `children` draws the game once the package is known.
 */
export function PackageGameFrame({
  route,
  pageClass,
  titleOf,
  children,
}: {
  route: PackageRoute;
  pageClass: string;
  titleOf(packageTitle: string): string;
  children(pkg: Package, back: ReactNode): ReactNode;
}) {
  const { projectId, via, pkg, query } = route;
  if (route.notFound) return <NotFound />;
  return (
    <ProjectFrame
      projectId={projectId}
      pageClass={pageClass}
      title={(project) => (pkg ? titleOf(pkg.title) : project.title)}
      breadcrumb={(project) => packageCrumbs(project, route, { label: titleOf(pkg?.title ?? '') })}
    >
      {() => {
        if (!pkg) return query.error ? <ErrorState error={query.error} onRetry={() => void query.refetch()} /> : <LoadingState />;
        const back = (
          <Link href={packageHref(projectId, pkg.id, via)} className="play_back">
            {play_page_back()}
          </Link>
        );
        return children(pkg, back);
      }}
    </ProjectFrame>
  );
}
