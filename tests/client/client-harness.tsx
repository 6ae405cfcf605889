/**
 * What client tests against a file's real server share: the providers a part of the client needs when
 * rendered alone, and the per-test reset. Import only after useDom() (await import('./client-harness.tsx')):
 * testing-library and the client need the DOM when they load.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, within } from '@testing-library/react';
import { afterAll, beforeEach } from 'bun:test';
import { useState, type ReactNode } from 'react';
import { DialogProvider, useDialogs } from '../../src/client/dialogs/dialog-provider.tsx';
import { setApiOrigin, setBearerToken } from '../../src/client/lib/api.ts';
import { LanguageProvider } from '../../src/client/lib/i18n/index.ts';
import { createTrpcClient, trpc } from '../../src/client/lib/trpc.ts';
import type { TestServer } from '../support/server.ts';

/** tRPC and its query client, the language, dialogs: what App gives a part rendered without it. */
export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(() => new QueryClient());
  const [client] = useState(createTrpcClient);
  return (
    <trpc.Provider client={client} queryClient={queryClient}>
      <QueryClientProvider client={queryClient}>
        <LanguageProvider>
          <DialogProvider>{children}</DialogProvider>
        </LanguageProvider>
      </QueryClientProvider>
    </trpc.Provider>
  );
}

/**
 * Renders the providers with a button whose click calls `open` with the dialogs, as the client opens a
 * dialog from a click, and clicks it; returns what `open` returned (the dialog's result).
 */
export function openOnClick<T>(open: (dialogs: ReturnType<typeof useDialogs>) => Promise<T>): Promise<T> {
  let result: Promise<T> | undefined;
  function Opener() {
    const dialogs = useDialogs();
    return (
      <button type="button" onClick={() => (result = open(dialogs))}>
        open
      </button>
    );
  }
  const view = render(
    <Providers>
      <Opener />
    </Providers>,
  );
  fireEvent.click(within(view.container).getByText('open'));
  return result!;
}

/**
 * Each test starts with nothing rendered, signed out, the client pointed at the file's server (started
 * in the file's beforeAll); after the last test the server stops.
 */
export function resetForEachTest(server: () => TestServer | undefined): void {
  afterAll(async () => {
    cleanup();
    await server()?.stop();
  });
  beforeEach(() => {
    cleanup();
    setBearerToken(null);
    setApiOrigin(server()!.url);
  });
}
