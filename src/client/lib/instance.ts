import type { InstanceInfo } from '../../shared/schemas/instance.ts';
import { appName as defaultAppName, signInProviders, type SignInProviderInfo } from './app-info.ts';
import { trpc } from './trpc.ts';

// No sign-in provider until the instance says which ones it configured (none is offered by default).
const fallback: InstanceInfo = { appName: defaultAppName, socialLinks: [], version: '', reportEmail: null, signInProviders: [] };

/** The instance's name and footer links (APP_NAME, SOCIAL_LINKS, REPORT_EMAIL on the server); fetched once. */
export function useInstance(): InstanceInfo {
  const query = trpc.instance.info.useQuery(undefined, { staleTime: Infinity, retry: 1, refetchOnWindowFocus: false });
  return query.data ?? fallback;
}

/** The sign-in providers this instance configured (instance info signInProviders), in the order of app-info's table. */
export function useSignInProviders(): readonly SignInProviderInfo[] {
  const configured = useInstance().signInProviders as readonly string[] | undefined;
  return signInProviders.filter((provider) => configured?.includes(provider.id));
}
