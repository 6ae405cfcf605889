import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, Suspense, useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { Layout } from './components/layout.tsx';
import { ErrorState, LoadingState } from './components/states.tsx';
import { DialogProvider } from './dialogs/dialog-provider.tsx';
import { AuthProvider, useAuth } from './lib/auth/auth.tsx';
import { toDisplayError } from './lib/errors.ts';
import { LanguageProvider } from './lib/i18n/index.ts';
import { matchPathname } from '../shared/routes/match.ts';
import { createTrpcClient, trpc } from './lib/trpc.ts';
import { auth_checking } from '../shared/i18n/paraglide/messages/auth_checking.js';
import { auth_session_error_text } from '../shared/i18n/paraglide/messages/auth_session_error_text.js';
import { auth_session_error_title } from '../shared/i18n/paraglide/messages/auth_session_error_title.js';
import { NotFoundPage, RequiredSignInPage, routes } from './routes/routes.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { auth_checking, auth_session_error_text, auth_session_error_title };

/** The whole client: data (tRPC over TanStack Query), language, dialogs, session, then the routed screen. */
export function App() {
  const [queryClient] = useState(createQueryClient);
  const [trpcClient] = useState(createTrpcClient);
  return (
    <StrictMode>
      <trpc.Provider client={trpcClient} queryClient={queryClient}>
        <QueryClientProvider client={queryClient}>
          <LanguageProvider>
            <DialogProvider>
              <AuthProvider>
                <RoutePreload />
                <Shell />
              </AuthProvider>
            </DialogProvider>
          </LanguageProvider>
        </QueryClientProvider>
      </trpc.Provider>
    </StrictMode>
  );
}

/** A call answered wrong_auth/unauthorized means the session ended elsewhere (revoked, expired): ask again. */
const signedOutCodes = new Set(['wrong_auth', 'unauthorized']);

function createQueryClient(): QueryClient {
  const onError = (error: unknown) => {
    if (!signedOutCodes.has(toDisplayError(error).code)) return;
    void client.invalidateQueries({ predicate: (query) => isSessionKey(query.queryKey) });
  };
  const client = new QueryClient({
    queryCache: new QueryCache({ onError }),
    mutationCache: new MutationCache({ onError }),
    defaultOptions: { queries: { retry: (count, error) => count < 1 && !signedOutCodes.has(toDisplayError(error).code), refetchOnWindowFocus: false, staleTime: 10_000 } },
  });
  return client;
}

function isSessionKey(key: readonly unknown[]): boolean {
  const path = key[0];
  return Array.isArray(path) && path[0] === 'auth' && path[1] === 'session';
}

/**
 * While a screen's code loads (its first visit): the spinner in the page's frame, centred like a
 * screen's own loading state. Not a <main id="content">: that is the screen's, once it is there.
 */
function ScreenLoading() {
  return (
    <div className="page page_pending">
      <LoadingState />
    </div>
  );
}

/** Starts the routed screen's preload (routes.ts) when the address changes, not after the session check. */
function RoutePreload() {
  const [location] = useLocation();
  const utils = trpc.useUtils();
  useEffect(() => {
    const match = matchPathname(routes, location);
    match?.view.preload?.(match.params, utils);
  }, [location, utils]);
  return null;
}

function Shell() {
  const auth = useAuth();
  const [location] = useLocation();
  if (auth.status === 'processing') {
    return (
      <main id="content" className="page page_processing">
        <LoadingState label={m.auth_checking()} />
      </main>
    );
  }
  if (auth.status === 'error') {
    return (
      <main id="content" className="page page_session_error">
        <h1>{m.auth_session_error_title()}</h1>
        <p>{m.auth_session_error_text()}</p>
        <ErrorState error={auth.error} onRetry={auth.retry} />
      </main>
    );
  }
  const match = matchPathname(routes, location);
  const mustSignIn = auth.authRequired && auth.status !== 'authenticated' && !match?.view.public;
  const View = match?.view.component ?? NotFoundPage;
  return (
    <Layout>
      <Suspense fallback={<ScreenLoading />}>
        {mustSignIn ? <RequiredSignInPage /> : <View key={location} params={match?.params ?? {}} />}
      </Suspense>
    </Layout>
  );
}
