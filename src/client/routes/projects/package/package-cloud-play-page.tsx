import { Link } from 'wouter';
import { package_cloud_play_title } from '../../../paraglide/messages/package_cloud_play_title.js';
import { play_page_back } from '../../../paraglide/messages/play_page_back.js';
import type { ViewProps } from '../../routes.ts';
import { ErrorState, LoadingState } from '../../../components/states.tsx';
import NotFound from '../../not-found/not-found-page.tsx';
import { packageHref } from '../links.ts';
import { ProjectFrame } from '../project-frame.tsx';
import { CloudPlayNotAllowed, CloudPlayView } from './cloud-play-view.tsx';
import { useCloudPlayReasons } from './package-launchers.tsx';
import { packageCrumbs, usePackageRoute } from './package-route.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { package_cloud_play_title, play_page_back };

/**
 * Spec §2 .../packages/{package}/cloud-play (under the project, a version or a branch's version): the
 * package's game on a cloud machine, for players with the cloud_play privilege (spec §6).
 */
export default function PackageCloudPlayPage({ params }: ViewProps) {
  const route = usePackageRoute(params);
  const { projectId, via, pkg, query } = route;
  const reasons = useCloudPlayReasons(pkg?.tags ?? []);
  if (route.notFound) return <NotFound />;
  return (
    <ProjectFrame
      projectId={projectId}
      pageClass="page_package_cloud_play"
      title={(project) => (pkg ? m.package_cloud_play_title({ title: pkg.title }) : project.title)}
      breadcrumb={(project) => packageCrumbs(project, route, { label: m.package_cloud_play_title({ title: pkg?.title ?? '' }) })}
    >
      {() => {
        if (!pkg) return query.error ? <ErrorState error={query.error} onRetry={() => void query.refetch()} /> : <LoadingState />;
        const back = (
          <Link href={packageHref(projectId, pkg.id, via)} className="play_back">
            {m.play_page_back()}
          </Link>
        );
        if (reasons.length > 0) return <CloudPlayNotAllowed title={pkg.title} back={back} reasons={reasons} />;
        return <CloudPlayView title={pkg.title} back={back} target={{ project: projectId, package: pkg.id }} />;
      }}
    </ProjectFrame>
  );
}
