import { Link } from 'wouter';
import { play_page_back_store } from '../../../shared/i18n/paraglide/messages/play_page_back_store.js';
import { store_title } from '../../../shared/i18n/paraglide/messages/store_title.js';
import { homeCrumb, type Crumb } from '../../components/page.tsx';
import { ErrorState, LoadingState } from '../../components/states.tsx';
import { toDisplayError } from '../../lib/errors.ts';
import { trpc } from '../../lib/trpc.ts';
import { storeHref } from '../projects/links.ts';
import type { ViewProps } from '../routes.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { play_page_back_store, store_title };

/**
 * What the store's two play pages (store/{project}/{branch}/{package}/play and /cloud-play) share: the
 * package found in the store project's own data (its summary: title, tags; no request of its own), the
 * title and breadcrumb, the link back to the store page, and what shows until the package is known.
 */
export function useStorePackage(params: ViewProps['params']) {
  const projectId = params.project ?? '';
  const branchId = params.branch ?? '';
  const packageId = params.package ?? '';
  const store = trpc.store.project.useQuery({ project: projectId });
  const branch = store.data?.branches.find((item) => item.id === branchId);
  const pkg = branch?.packages.find((item) => item.id === packageId);
  return { projectId, branchId, packageId, store, pkg };
}

/** A query's error says there is no such thing (the page shows NotFound). */
export function isNotFoundError(error: unknown): boolean {
  return error !== null && toDisplayError(error).code === 'not_found';
}

/** Home › Store › the project › the package's page (once each is known); the title is the last known. */
export function storePlayHeading(projectId: string, projectTitle: string | undefined, packagePageTitle: string | undefined): { title: string; crumbs: Crumb[] } {
  const crumbs: Crumb[] = [homeCrumb(), { label: m.store_title(), href: '/store' }];
  if (projectTitle !== undefined) crumbs.push({ label: projectTitle, href: storeHref(projectId) });
  if (packagePageTitle !== undefined) crumbs.push({ label: packagePageTitle });
  return { title: packagePageTitle ?? projectTitle ?? m.store_title(), crumbs };
}

/** Back to the project's store page, beside the game. */
export function BackToStore({ projectId }: { projectId: string }) {
  return (
    <Link href={storeHref(projectId)} className="play_back">
      {m.play_page_back_store()}
    </Link>
  );
}

/** Until the package is known: the store project's failure (with Retry), or loading. */
export function StorePackagePending({ store }: { store: { error: unknown; refetch: () => unknown } }) {
  return store.error ? <ErrorState error={store.error} onRetry={() => void store.refetch()} /> : <LoadingState />;
}
