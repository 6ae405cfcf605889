import { Link } from 'wouter';
import { package_cloud_play_title } from '../../../shared/i18n/paraglide/messages/package_cloud_play_title.js';
import { play_page_back_store } from '../../../shared/i18n/paraglide/messages/play_page_back_store.js';
import { store_title } from '../../../shared/i18n/paraglide/messages/store_title.js';
import { homeCrumb, Page, type Crumb } from '../../components/page.tsx';
import { ErrorState, LoadingState } from '../../components/states.tsx';
import { toDisplayError } from '../../lib/errors.ts';
import { trpc } from '../../lib/trpc.ts';
import NotFound from '../not-found/not-found-page.tsx';
import { storeHref } from '../projects/links.ts';
import { CloudPlayNotAllowed, CloudPlayView } from '../projects/package/cloud-play-view.tsx';
import { useCloudPlayReasons } from '../projects/package/package-launchers.tsx';
import type { ViewProps } from '../routes.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { package_cloud_play_title, play_page_back_store, store_title };

/**
 * store/{project}/{branch}/{package}/cloud-play: a package of a public branch's current version on a
 * cloud machine, for signed-in players with the cloud_play privilege (spec §6).
 */
export default function StoreCloudPlayPage({ params }: ViewProps) {
  const projectId = params.project ?? '';
  const branchId = params.branch ?? '';
  const packageId = params.package ?? '';
  const store = trpc.store.project.useQuery({ project: projectId });
  const branch = store.data?.branches.find((item) => item.id === branchId);
  const pkg = branch?.packages.find((item) => item.id === packageId);
  const reasons = useCloudPlayReasons(pkg?.tags ?? []);
  const isNotFound = store.error !== null && toDisplayError(store.error).code === 'not_found';
  if (isNotFound || (store.data && !pkg)) return <NotFound />;

  const crumbs: Crumb[] = [homeCrumb(), { label: m.store_title(), href: '/store' }];
  if (store.data) crumbs.push({ label: store.data.title, href: storeHref(projectId) });
  if (pkg) crumbs.push({ label: m.package_cloud_play_title({ title: pkg.title }) });
  const back = (
    <Link href={storeHref(projectId)} className="play_back">
      {m.play_page_back_store()}
    </Link>
  );
  return (
    <Page title={pkg ? m.package_cloud_play_title({ title: pkg.title }) : (store.data?.title ?? m.store_title())} breadcrumb={crumbs} pageClass="page_package_cloud_play">
      {!pkg ? (
        store.error ? (
          <ErrorState error={store.error} onRetry={() => void store.refetch()} />
        ) : (
          <LoadingState />
        )
      ) : reasons.length > 0 ? (
        <CloudPlayNotAllowed title={pkg.title} back={back} reasons={reasons} />
      ) : (
        <CloudPlayView title={pkg.title} back={back} target={{ project: projectId, package: pkg.id }} />
      )}
    </Page>
  );
}
