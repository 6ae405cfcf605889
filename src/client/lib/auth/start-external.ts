import { routes } from '../../../shared/api/routes.ts';
import type { ExternalIntent, SignInProviderId } from '../../../shared/schemas/external-auth.ts';
import { api } from '../api.ts';
import { leaveForProvider, saveExternalAuth } from './external-auth.ts';

/**
 * Spec §4 start: asks the server for the provider's address, keeps the token, the page to come back to
 * and the intent in the browser, and leaves for the provider. The authentication dialog and the oauth
 * page's next steps (try again, create an account with the provider) start here alike.
 */
export async function startExternalAuth(provider: SignInProviderId, intent: ExternalIntent, returnTo: string): Promise<void> {
  const started = await api.call(routes.auth.externalStart, { query: { provider, intent } });
  try {
    saveExternalAuth({ token: started.token, returnTo, intent, provider });
  } catch {
    // storage blocked: the finishing step will report wrong_finish_auth_params
  }
  leaveForProvider(started);
}
