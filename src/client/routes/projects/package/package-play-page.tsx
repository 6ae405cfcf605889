import { play_page_title } from '../../../../shared/i18n/paraglide/messages/play_page_title.js';
import type { ViewProps } from '../../routes.ts';
import { toDisplayError } from '../../../lib/errors.ts';
import { trpc } from '../../../lib/trpc.ts';
import { PackageGameFrame } from './package-game-frame.tsx';
import { WEB_TAG } from './package-launchers.tsx';
import { usePackageRoute } from './package-route.ts';
import { NotPlayable, PlayView, playUrlQueryOptions } from './play-view.tsx';

/** Spec §2 .../packages/{package}/play: the package's game in the play frame (web packages only). */
export default function PackagePlayPage({ params }: ViewProps) {
  const route = usePackageRoute(params);
  const { pkg } = route;
  const isWeb = pkg?.tags.includes(WEB_TAG) ?? false;
  const playUrl = trpc.play.packageUrl.useQuery(
    { project: route.projectId, package: route.packageId },
    { enabled: isWeb && pkg?.status === 'ready', ...playUrlQueryOptions },
  );
  return (
    <PackageGameFrame route={route} pageClass="page_package_play" titleOf={(title) => play_page_title({ title })}>
      {(pkg, back) =>
        !isWeb || (playUrl.error && toDisplayError(playUrl.error).code === 'not_supported') ? (
          <NotPlayable title={pkg.title} back={back} />
        ) : (
          <PlayView title={pkg.title} query={playUrl} back={back} notReady={pkg.status !== 'ready'} />
        )
      }
    </PackageGameFrame>
  );
}
