import { package_cloud_play_title } from '../../../shared/i18n/paraglide/messages/package_cloud_play_title.js';
import { Page } from '../../components/page.tsx';
import NotFound from '../not-found/not-found-page.tsx';
import { CloudPlayNotAllowed, CloudPlayView } from '../projects/package/cloud-play-view.tsx';
import { useCloudPlayReasons } from '../projects/package/package-launchers.tsx';
import type { ViewProps } from '../routes.ts';
import { BackToStore, isNotFoundError, StorePackagePending, storePlayHeading, useStorePackage } from './store-play-parts.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { package_cloud_play_title };

/**
 * store/{project}/{branch}/{package}/cloud-play: a package of a public branch's current version on a
 * cloud machine, for signed-in players with the cloud_play privilege (spec §6).
 */
export default function StoreCloudPlayPage({ params }: ViewProps) {
  const { projectId, store, pkg } = useStorePackage(params);
  const reasons = useCloudPlayReasons(pkg?.tags ?? []);
  if (isNotFoundError(store.error) || (store.data && !pkg)) return <NotFound />;

  const { title, crumbs } = storePlayHeading(projectId, store.data?.title, pkg ? m.package_cloud_play_title({ title: pkg.title }) : undefined);
  const back = <BackToStore projectId={projectId} />;
  return (
    <Page title={title} breadcrumb={crumbs} pageClass="page_package_cloud_play">
      {!pkg ? (
        <StorePackagePending store={store} />
      ) : reasons.length > 0 ? (
        <CloudPlayNotAllowed title={pkg.title} back={back} reasons={reasons} />
      ) : (
        <CloudPlayView title={pkg.title} back={back} target={{ project: projectId, package: pkg.id }} />
      )}
    </Page>
  );
}
