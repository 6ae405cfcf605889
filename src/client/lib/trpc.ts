import { createTRPCClient, httpBatchLink, httpLink, splitLink } from '@trpc/client';
import { createTRPCReact } from '@trpc/react-query';
import type { AppRouter } from '../../server/trpc/router.ts';
import { apiUrl, authorizationHeaders } from './api.ts';

export const trpc = createTRPCReact<AppRouter>();

/**
 * One batching link to /trpc; the bearer token is read before each call, so sign-in and out apply at
 * once. The session check goes alone: the whole app waits on it, never on a screen's data sent with it.
 */
export function createTrpcClient() {
  const options = { url: apiUrl('/trpc'), headers: () => authorizationHeaders() };
  return trpc.createClient({
    links: [splitLink({ condition: (op) => op.path === 'auth.session', true: httpLink(options), false: httpBatchLink(options) })],
  });
}

/**
 * A client for a call that must outlive the page (keepalive: the cloud-play stop when the tab closes):
 * one call per request, no bearer (the session's token in the input is its authorisation).
 */
export function createLeavingTrpcClient() {
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: apiUrl('/trpc'), fetch: (input, init) => fetch(input, { ...(init as RequestInit), keepalive: true }) })],
  });
}
