import type { InstanceInfo } from '../../../shared/schemas/instance.ts';
import { apiVersion } from '../../api-version.ts';
import type { Deps } from '../../deps.ts';

/** GET /instance: public branding of this instance, from APP_NAME and SOCIAL_LINKS. */
export function getInstanceInfo(deps: Deps): InstanceInfo {
  return { appName: deps.config.appName, socialLinks: deps.config.socialLinks, version: apiVersion, reportEmail: deps.config.reportEmail ?? null };
}
