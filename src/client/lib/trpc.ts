import { httpBatchLink } from '@trpc/client';
import { createTRPCReact } from '@trpc/react-query';
import type { AppRouter } from '../../server/trpc/router.ts';
import { apiUrl, authorizationHeaders } from './api.ts';

export const trpc = createTRPCReact<AppRouter>();

/** One batching link to /trpc; the bearer token is read before each call, so sign-in and out apply at once. */
export function createTrpcClient() {
  return trpc.createClient({
    links: [httpBatchLink({ url: apiUrl('/trpc'), headers: () => authorizationHeaders() })],
  });
}
