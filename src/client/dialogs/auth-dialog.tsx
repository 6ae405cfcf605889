import { useState } from 'react';
import { auth_provider_button } from '../paraglide/messages/auth_provider_button.js';
import { auth_provider_dialog_text } from '../paraglide/messages/auth_provider_dialog_text.js';
import { auth_provider_dialog_title } from '../paraglide/messages/auth_provider_dialog_title.js';
import { auth_redirecting } from '../paraglide/messages/auth_redirecting.js';
import { dialog_cancel } from '../paraglide/messages/dialog_cancel.js';
import { api, ApiError } from '../lib/api.ts';
import { routes } from '../../shared/api/routes.ts';
import type { StartedExternalAuth } from '../../shared/api/replies.ts';
import { signInProviders, type SignInProvider } from '../lib/app-info.ts';
import type { Dialogs } from './dialog-api.tsx';
import { useDialogs } from './dialog-provider.tsx';
import { Modal } from './modal.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { auth_provider_button, auth_provider_dialog_text, auth_provider_dialog_title, auth_redirecting, dialog_cancel };

export type ExternalIntent = 'login' | 'register' | 'link';

/** Where the finishing step (oauth route, a later issue) finds what start stored (spec §4). */
export const externalAuthStorageKey = 'externalAuth';

/** The authentication dialog: pick one of the six providers; the browser then leaves for it. */
export function openAuthDialog(dialogs: Dialogs, intent: ExternalIntent, returnTo: string): Promise<void> {
  return dialogs.open<void>((close) => <AuthDialog intent={intent} returnTo={returnTo} onClose={() => close()} />);
}

function AuthDialog({ intent, returnTo, onClose }: { intent: ExternalIntent; returnTo: string; onClose: () => void }) {
  const dialogs = useDialogs();
  const [pending, setPending] = useState<SignInProvider | null>(null);
  const pendingName = signInProviders.find((provider) => provider.id === pending)?.name;

  const choose = async (provider: SignInProvider) => {
    if (pending) return; // spec §2: a second pick is ignored while the first is pending
    setPending(provider);
    try {
      const started = await startExternalAuth(provider, intent);
      try {
        localStorage.setItem(externalAuthStorageKey, JSON.stringify({ token: started.token, returnTo, intent, provider }));
      } catch {
        // storage blocked: the finishing step will report wrong_finish_auth_params
      }
      redirectTo(started);
    } catch (error) {
      onClose();
      await dialogs.error(error);
    }
  };

  return (
    <Modal title={m.auth_provider_dialog_title()} onCancel={onClose}>
      <p className="dialog_body">{m.auth_provider_dialog_text()}</p>
      <ul className="provider_list" aria-busy={pending ? true : undefined}>
        {signInProviders.map((provider) => (
          <li key={provider.id}>
            <button
              type="button"
              className={`button provider_button provider_${provider.id}`}
              aria-disabled={pending ? true : undefined}
              onClick={() => void choose(provider.id)}
            >
              {m.auth_provider_button({ provider: provider.name })}
            </button>
          </li>
        ))}
      </ul>
      <p className="dialog_status" role="status">
        {pendingName ? m.auth_redirecting({ provider: pendingName }) : ''}
      </p>
      <div className="dialog_actions">
        <button type="button" className="button" data-autofocus onClick={onClose}>
          {m.dialog_cancel()}
        </button>
      </div>
    </Modal>
  );
}

async function startExternalAuth(provider: SignInProvider, intent: ExternalIntent): Promise<StartedExternalAuth> {
  try {
    return await api.call(routes.auth.externalStart, { query: { provider, intent } });
  } catch (error) {
    // Until the providers' server side exists the route itself is missing: that is 'not supported'.
    if (error instanceof ApiError && error.status === 404 && (error.code === 'not_found' || error.code === 'http_404')) {
      throw new ApiError('not_supported', error.message, { status: 501, statusText: error.statusText, body: error.body, request: error.request });
    }
    throw error;
  }
}

/** Spec §4: a hidden POST form when the provider wants POST parameters, else a plain navigation. */
function redirectTo(started: StartedExternalAuth): void {
  const params = started.postParams ? Object.entries(started.postParams) : [];
  if (params.length === 0) {
    location.assign(started.url);
    return;
  }
  const form = document.createElement('form');
  form.method = 'POST';
  form.action = started.url;
  form.hidden = true;
  for (const [name, value] of params) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.append(input);
  }
  document.body.append(form);
  form.submit();
}
