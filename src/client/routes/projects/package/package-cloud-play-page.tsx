import { package_cloud_play_title } from '../../../../shared/i18n/paraglide/messages/package_cloud_play_title.js';
import type { ViewProps } from '../../routes.ts';
import { CloudPlayNotAllowed, CloudPlayView } from './cloud-play-view.tsx';
import { PackageGameFrame } from './package-game-frame.tsx';
import { useCloudPlayReasons } from './package-launchers.tsx';
import { usePackageRoute } from './package-route.ts';

/**
 * Spec §2 .../packages/{package}/cloud-play (under the project, a version or a branch's version): the
 * package's game on a cloud machine, for players with the cloud_play privilege (spec §6).
 */
export default function PackageCloudPlayPage({ params }: ViewProps) {
  const route = usePackageRoute(params);
  const reasons = useCloudPlayReasons(route.pkg?.tags ?? []);
  return (
    <PackageGameFrame route={route} pageClass="page_package_cloud_play" titleOf={(title) => package_cloud_play_title({ title })}>
      {(pkg, back) =>
        reasons.length > 0 ? (
          <CloudPlayNotAllowed title={pkg.title} back={back} reasons={reasons} />
        ) : (
          <CloudPlayView title={pkg.title} back={back} target={{ project: route.projectId, package: pkg.id }} />
        )
      }
    </PackageGameFrame>
  );
}
