import { useState } from 'react';
import { auth_provider_button } from '../../shared/i18n/paraglide/messages/auth_provider_button.js';
import { auth_provider_dialog_text } from '../../shared/i18n/paraglide/messages/auth_provider_dialog_text.js';
import { auth_provider_dialog_text_link } from '../../shared/i18n/paraglide/messages/auth_provider_dialog_text_link.js';
import { auth_provider_dialog_text_register } from '../../shared/i18n/paraglide/messages/auth_provider_dialog_text_register.js';
import { auth_provider_dialog_title } from '../../shared/i18n/paraglide/messages/auth_provider_dialog_title.js';
import { auth_provider_link_only } from '../../shared/i18n/paraglide/messages/auth_provider_link_only.js';
import { auth_providers_none } from '../../shared/i18n/paraglide/messages/auth_providers_none.js';
import { state_loading } from '../../shared/i18n/paraglide/messages/state_loading.js';
import { auth_redirecting } from '../../shared/i18n/paraglide/messages/auth_redirecting.js';
import { ProviderMark } from '../components/provider-mark.tsx';
import type { SignInProviderInfo } from '../lib/app-info.ts';
import { startExternalAuth } from '../lib/auth/start-external.ts';
import { rich, slot } from '../lib/i18n/rich.tsx';
import { useInstanceKnown, useSignInProviders } from '../lib/instance.ts';
import type { ExternalIntent } from '../../shared/schemas/external-auth.ts';
import type { Dialogs } from './dialog-api.tsx';
import { DialogFooter } from './dialog-footer.tsx';
import { useDialogs } from './dialog-provider.tsx';
import { Modal } from './modal.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { auth_provider_button, auth_provider_dialog_text, auth_provider_dialog_text_link, auth_provider_dialog_text_register, auth_provider_dialog_title, auth_provider_link_only, auth_providers_none, auth_redirecting, state_loading };

export type { ExternalIntent };

/**
 * The authentication dialog (spec §2, §4): the providers this instance configured; picking one starts
 * the external sign-in, keeps its token, `returnTo` (path plus query) and intent in the browser and
 * leaves for the provider. The oauth page finishes when the provider sends the browser back.
 */
export function openAuthDialog(dialogs: Dialogs, intent: ExternalIntent, returnTo: string): Promise<void> {
  return dialogs.open<void>((close) => <AuthDialog intent={intent} returnTo={returnTo} onClose={() => close()} />);
}

function AuthDialog({ intent, returnTo, onClose }: { intent: ExternalIntent; returnTo: string; onClose: () => void }) {
  const dialogs = useDialogs();
  const providers = useSignInProviders(intent === 'link' ? 'link' : 'sign_in');
  // Offered for linking, not for signing in (itch.io): said so beside its button.
  const signingIn = useSignInProviders('sign_in');
  // Until the instance says which services it offers, neither the list nor "no other service".
  const known = useInstanceKnown();
  const linkOnly = (provider: SignInProviderInfo) => intent === 'link' && !signingIn.some((known) => known.id === provider.id);
  const [pending, setPending] = useState<SignInProviderInfo | null>(null);
  const text = intent === 'link' ? m.auth_provider_dialog_text_link() : intent === 'register' ? m.auth_provider_dialog_text_register() : m.auth_provider_dialog_text();

  const choose = async (provider: SignInProviderInfo) => {
    if (pending) return; // spec §2: a second pick is ignored while the first is pending
    setPending(provider);
    try {
      await startExternalAuth(provider.id, intent, returnTo);
    } catch (error) {
      onClose();
      await dialogs.error(error);
    }
  };

  return (
    <Modal title={m.auth_provider_dialog_title()} onCancel={onClose} className="auth_dialog">
      {!known ? (
        <p className="dialog_body" aria-busy="true">{m.state_loading()}</p>
      ) : providers.length === 0 ? (
        <p className="dialog_body auth_providers_none">{m.auth_providers_none()}</p>
      ) : (
        <>
          <p className="dialog_body">{text}</p>
          <ul className="provider_list" aria-busy={pending ? true : undefined}>
            {providers.map((provider) => (
              <li key={provider.id}>
                <button
                  type="button"
                  className={`button provider_button provider_${provider.id}`}
                  data-provider={provider.id}
                  aria-disabled={pending ? true : undefined}
                  aria-describedby={linkOnly(provider) ? `provider-note-${provider.id}` : undefined}
                  onClick={() => void choose(provider)}
                >
                  <ProviderMark provider={provider.id} />
                  <span>{rich(m.auth_provider_button({ provider: slot('provider') }), { provider: <bdi>{provider.name}</bdi> })}</span>
                </button>
                {linkOnly(provider) ? (
                  <p className="provider_note" id={`provider-note-${provider.id}`}>
                    {rich(m.auth_provider_link_only({ provider: slot('provider') }), { provider: <bdi>{provider.name}</bdi> })}
                  </p>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      )}
      <p className="dialog_status" role="status">
        {pending ? rich(m.auth_redirecting({ provider: slot('provider') }), { provider: <bdi>{pending.name}</bdi> }) : ''}
      </p>
      <DialogFooter onCancel={onClose} />
    </Modal>
  );
}
