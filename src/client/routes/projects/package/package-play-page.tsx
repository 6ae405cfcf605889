import { play_page_back } from '../../../paraglide/messages/play_page_back.js';
import { play_page_title } from '../../../paraglide/messages/play_page_title.js';
import type { ViewProps } from '../../routes.ts';
import { Link } from 'wouter';
import { ErrorState, LoadingState } from '../../../components/states.tsx';
import { toDisplayError } from '../../../lib/errors.ts';
import { trpc } from '../../../lib/trpc.ts';
import NotFound from '../../not-found/not-found-page.tsx';
import { packageHref } from '../links.ts';
import { ProjectFrame } from '../project-frame.tsx';
import { WEB_TAG } from './package-launchers.tsx';
import { packageCrumbs, usePackageRoute } from './package-route.ts';
import { NotPlayable, PlayView, playUrlQueryOptions } from './play-view.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { play_page_back, play_page_title };

/** Spec §2 .../packages/{package}/play: the package's game in the play frame (web packages only). */
export default function PackagePlayPage({ params }: ViewProps) {
  const route = usePackageRoute(params);
  const { projectId, via, pkg, query } = route;
  const isWeb = pkg?.tags.includes(WEB_TAG) ?? false;
  const playUrl = trpc.play.packageUrl.useQuery(
    { project: projectId, package: route.packageId },
    { enabled: isWeb && pkg?.status === 'ready', ...playUrlQueryOptions },
  );
  if (route.notFound) return <NotFound />;
  return (
    <ProjectFrame
      projectId={projectId}
      pageClass="page_package_play"
      title={(project) => (pkg ? m.play_page_title({ title: pkg.title }) : project.title)}
      breadcrumb={(project) => packageCrumbs(project, route, { label: m.play_page_title({ title: pkg?.title ?? '' }) })}
    >
      {() => {
        if (!pkg) return query.error ? <ErrorState error={query.error} onRetry={() => void query.refetch()} /> : <LoadingState />;
        const back = (
          <Link href={packageHref(projectId, pkg.id, via)} className="play_back">
            {m.play_page_back()}
          </Link>
        );
        if (!isWeb || (playUrl.error && toDisplayError(playUrl.error).code === 'not_supported')) return <NotPlayable title={pkg.title} back={back} />;
        return <PlayView title={pkg.title} query={playUrl} back={back} notReady={pkg.status !== 'ready'} />;
      }}
    </ProjectFrame>
  );
}
