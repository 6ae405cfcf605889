import type { SignInProviderId } from '../../../../../shared/schemas/external-auth.ts';
import type { ExternalIdentity } from '../identity.ts';

type StartInput = {
  /** PUBLIC_URL/oauth (else the request's origin + /oauth): where the provider sends the browser back. */
  redirectUri: string;
  /** The start token: the provider returns it as `state` (Steam: in return_to's query). */
  state: string;
};

type StartedFlow = {
  url: string;
  postParams: { name: string; value: string }[];
  /** Kept on the server (sealed) until finish: a PKCE verifier, the exact return_to sent. */
  secret: Record<string, string>;
};

type FinishInput = StartInput & {
  /** What the browser brought back (spec §5): a code, itch's access token, Steam's parameters as JSON. */
  code: string;
  secret: Record<string, string>;
};

/** One sign-in provider, speaking its real protocol with the endpoints of the configuration. */
export type SignInProvider = {
  id: SignInProviderId;
  start(input: StartInput): Promise<StartedFlow>;
  /** The identity, or an AppError (providerRefused, assertionRefused, providerUnavailable) / ProviderAnswerError. */
  finish(input: FinishInput): Promise<ExternalIdentity>;
};
