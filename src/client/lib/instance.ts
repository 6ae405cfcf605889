import type { InstanceInfo } from '../../shared/schemas/instance.ts';
import { appName as defaultAppName } from './app-info.ts';
import { trpc } from './trpc.ts';

const fallback: InstanceInfo = { appName: defaultAppName, socialLinks: [], version: '', reportEmail: null };

/** The instance's name and footer links (APP_NAME, SOCIAL_LINKS, REPORT_EMAIL on the server); fetched once. */
export function useInstance(): InstanceInfo {
  const query = trpc.instance.info.useQuery(undefined, { staleTime: Infinity, retry: 1, refetchOnWindowFocus: false });
  return query.data ?? fallback;
}
