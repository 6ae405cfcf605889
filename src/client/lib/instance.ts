import type { InstanceInfo } from '../../shared/schemas/instance.ts';
import { appName as defaultAppName, signInProviders, type SignInProviderInfo } from './app-info.ts';
import { trpc } from './trpc.ts';

// No sign-in provider until the instance says which ones it configured (none is offered by default).
const fallback: InstanceInfo = { appName: defaultAppName, socialLinks: [], version: '', reportEmail: null, signInProviders: [], linkProviders: [], orphanPackageDays: 0 };

/** The instance's name and footer links (APP_NAME, SOCIAL_LINKS, REPORT_EMAIL on the server); fetched once. */
export function useInstance(): InstanceInfo {
  return useInstanceQuery().data ?? fallback;
}

/** Whether the instance info has come (until then useInstance answers the fallback: no providers). */
export function useInstanceKnown(): boolean {
  return useInstanceQuery().data !== undefined;
}

function useInstanceQuery() {
  return trpc.instance.info.useQuery(undefined, { staleTime: Infinity, retry: 1, refetchOnWindowFocus: false });
}

/**
 * The providers this instance offers, in the order of app-info's table: to sign in or register
 * (instance info signInProviders), or (link) to link to the signed-in account (linkProviders: itch.io
 * only links).
 */
export function useSignInProviders(purpose: 'sign_in' | 'link' = 'sign_in'): readonly SignInProviderInfo[] {
  const instance = useInstance();
  const configured = (purpose === 'link' ? instance.linkProviders : instance.signInProviders) as readonly string[] | undefined;
  return signInProviders.filter((provider) => configured?.includes(provider.id));
}
