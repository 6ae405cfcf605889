import { useMemo } from 'react';
import { play_page_title } from '../../../shared/i18n/paraglide/messages/play_page_title.js';
import { Page, usePageMetaContext } from '../../components/page.tsx';
import { storePlayMeta } from '../../../shared/store/store-meta.ts';
import { toDisplayError } from '../../lib/errors.ts';
import { META_LOADING } from '../../lib/page-meta.ts';
import { trpc } from '../../lib/trpc.ts';
import NotFound from '../not-found/not-found-page.tsx';
import { WEB_TAG } from '../projects/package/package-launchers.tsx';
import { NotPlayable, PlayView, playUrlQueryOptions } from '../projects/package/play-view.tsx';
import type { ViewProps } from '../routes.ts';
import { storeMetaTexts } from './store-meta-texts.ts';
import { BackToStore, isNotFoundError, StorePackagePending, storePlayHeading, useStorePackage } from './store-play-parts.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { play_page_title };

/**
 * Spec §2 store/{project}/{branch}/{package}/play: a web package of a public branch's current version,
 * for anyone, signed in or not. The store's own data says which branch holds the package.
 */
export default function StorePlayPage({ params }: ViewProps) {
  const { projectId, branchId, packageId, store, pkg } = useStorePackage(params);
  const listed = pkg !== undefined;
  const isWeb = pkg?.tags.includes(WEB_TAG) ?? false;
  const playUrl = trpc.play.storePackageUrl.useQuery(
    { project: projectId, branch: branchId, package: packageId },
    { enabled: isWeb, ...playUrlQueryOptions },
  );
  // The head the server writes for a web package's play page (issue 21).
  const metaContext = usePageMetaContext();
  const meta = useMemo(
    () => (store.data && pkg && isWeb ? storePlayMeta(store.data, branchId, pkg.id, m.play_page_title({ title: pkg.title }), metaContext, storeMetaTexts()) : undefined),
    [store.data, pkg, isWeb, branchId, metaContext],
  );
  const screenMeta = meta ?? (store.isPending ? META_LOADING : undefined);
  if (isNotFoundError(store.error) || isNotFoundError(playUrl.error) || (store.data && !listed)) return <NotFound />;

  const packageTitle = pkg?.title;
  const { title, crumbs } = storePlayHeading(projectId, store.data?.title, packageTitle ? m.play_page_title({ title: packageTitle }) : undefined);
  const back = <BackToStore projectId={projectId} />;
  return (
    <Page title={title} meta={screenMeta} breadcrumb={crumbs} pageClass="page_package_play">
      {packageTitle === undefined ? (
        <StorePackagePending store={store} />
      ) : !isWeb || (playUrl.error && toDisplayError(playUrl.error).code === 'not_supported') ? (
        <NotPlayable title={packageTitle} back={back} />
      ) : (
        <PlayView title={packageTitle} query={playUrl} back={back} />
      )}
    </Page>
  );
}
