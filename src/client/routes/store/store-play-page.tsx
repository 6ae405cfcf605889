import { useMemo } from 'react';
import { Link } from 'wouter';
import { play_page_back_store } from '../../../shared/i18n/paraglide/messages/play_page_back_store.js';
import { play_page_title } from '../../../shared/i18n/paraglide/messages/play_page_title.js';
import { store_title } from '../../../shared/i18n/paraglide/messages/store_title.js';
import { homeCrumb, Page, usePageMetaContext, type Crumb } from '../../components/page.tsx';
import { storePlayMeta } from '../../../shared/store/store-meta.ts';
import { ErrorState, LoadingState } from '../../components/states.tsx';
import { toDisplayError } from '../../lib/errors.ts';
import { META_LOADING } from '../../lib/page-meta.ts';
import { trpc } from '../../lib/trpc.ts';
import NotFound from '../not-found/not-found-page.tsx';
import { storeHref } from '../projects/links.ts';
import { WEB_TAG } from '../projects/package/package-launchers.tsx';
import { NotPlayable, PlayView, playUrlQueryOptions } from '../projects/package/play-view.tsx';
import type { ViewProps } from '../routes.ts';
import { storeMetaTexts } from './store-meta-texts.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { play_page_back_store, play_page_title, store_title };

/**
 * Spec §2 store/{project}/{branch}/{package}/play: a web package of a public branch's current version,
 * for anyone, signed in or not. The store's own data says which branch holds the package.
 */
export default function StorePlayPage({ params }: ViewProps) {
  const projectId = params.project ?? '';
  const branchId = params.branch ?? '';
  const packageId = params.package ?? '';
  const store = trpc.store.project.useQuery({ project: projectId });
  const branch = store.data?.branches.find((item) => item.id === branchId);
  // The store project carries the package's summary (title, tags): no request of its own.
  const pkg = branch?.packages.find((item) => item.id === packageId);
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
  const isNotFound = (error: unknown) => error !== null && toDisplayError(error).code === 'not_found';
  if (isNotFound(store.error) || isNotFound(playUrl.error) || (store.data && !listed)) return <NotFound />;

  const crumbs: Crumb[] = [homeCrumb(), { label: m.store_title(), href: '/store' }];
  if (store.data) crumbs.push({ label: store.data.title, href: storeHref(projectId) });
  const title = pkg?.title;
  if (title) crumbs.push({ label: m.play_page_title({ title }) });
  const error = store.error;
  const back = (
    <Link href={storeHref(projectId)} className="play_back">
      {m.play_page_back_store()}
    </Link>
  );
  return (
    <Page title={title ? m.play_page_title({ title }) : (store.data?.title ?? m.store_title())} meta={screenMeta} breadcrumb={crumbs} pageClass="page_package_play">
      {title === undefined ? (
        error ? (
          <ErrorState error={error} onRetry={() => void store.refetch()} />
        ) : (
          <LoadingState />
        )
      ) : !isWeb || (playUrl.error && toDisplayError(playUrl.error).code === 'not_supported') ? (
        <NotPlayable title={title} back={back} />
      ) : (
        <PlayView title={title} query={playUrl} back={back} />
      )}
    </Page>
  );
}
