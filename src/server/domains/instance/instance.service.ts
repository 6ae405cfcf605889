import type { InstanceInfo } from '../../../shared/schemas/instance.ts';
import { apiVersion } from '../../api-version.ts';
import type { Deps } from '../../deps.ts';
import { configuredProviderIds, signInProviderIdsOf } from '../auth/external/providers/index.ts';

/**
 * GET /instance: public branding of this instance (APP_NAME, SOCIAL_LINKS), the providers it signs in with
 * and those it links, and how long packages in no version are kept (the packages screen says when one goes).
 */
export function getInstanceInfo(deps: Deps): InstanceInfo {
  return {
    appName: deps.config.appName,
    socialLinks: deps.config.socialLinks,
    version: apiVersion,
    reportEmail: deps.config.reportEmail ?? null,
    signInProviders: signInProviderIdsOf(deps.config.signIn),
    linkProviders: configuredProviderIds(deps.config.signIn),
    orphanPackageDays: deps.config.orphanPackages.graceMs / 86_400_000,
  };
}
