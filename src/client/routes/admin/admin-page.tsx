import { admin_title } from '../../../shared/i18n/paraglide/messages/admin_title.js';
import { homeCrumb, Page } from '../../components/page.tsx';
import { ErrorState, LoadingState } from '../../components/states.tsx';
import { useAuth } from '../../lib/auth/auth.tsx';
import { toDisplayError } from '../../lib/errors.ts';
import { trpc } from '../../lib/trpc.ts';
import NotFound from '../not-found/not-found-page.tsx';
import { CloudMachinesSection } from './cloud-machines-section.tsx';
import { OptimizeImagesSection } from './optimize-images-section.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { admin_title };

/** Refusals that mean 'not for you': the page then does not exist for the visitor. */
const hiddenCodes = new Set(['unauthorized', 'insufficient_privileges', 'not_found', 'http_401', 'http_403']);

/**
 * Spec §2's unlisted admin path: for instance administrators only; everyone else (visitors included)
 * gets the not-found page, so the path says nothing about itself.
 */
export default function AdminPage() {
  const auth = useAuth();
  const signedIn = auth.status === 'authenticated';
  const me = trpc.users.me.useQuery(undefined, { enabled: signedIn, retry: false });
  if (auth.status === 'not_authenticated' || auth.status === 'error') return <NotFound />;
  if (me.data && !me.data.isAdmin) return <NotFound />;
  if (me.error && hiddenCodes.has(toDisplayError(me.error).code)) return <NotFound />;
  return (
    <Page title={m.admin_title()} breadcrumb={[homeCrumb(), { label: m.admin_title() }]} pageClass="page_admin">
      <h1>{m.admin_title()}</h1>
      {me.data ? (
        <>
          <OptimizeImagesSection />
          <CloudMachinesSection />
        </>
      ) : me.error ? <ErrorState error={me.error} onRetry={() => void me.refetch()} /> : <LoadingState />}
    </Page>
  );
}
