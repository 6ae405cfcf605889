import type { InstanceInfo } from '../../../shared/schemas/instance.ts';
import { apiVersion } from '../../api-version.ts';
import type { Deps } from '../../deps.ts';
import { configuredProviderIds } from '../auth/external/providers/index.ts';

/** GET /instance: public branding of this instance (APP_NAME, SOCIAL_LINKS) and the sign-in providers it offers. */
export function getInstanceInfo(deps: Deps): InstanceInfo {
  return {
    appName: deps.config.appName,
    socialLinks: deps.config.socialLinks,
    version: apiVersion,
    reportEmail: deps.config.reportEmail ?? null,
    signInProviders: configuredProviderIds(deps.config.signIn),
  };
}
