import { useId, useState, type FormEvent } from 'react';
import { deploy_credential_add } from '../../shared/i18n/paraglide/messages/deploy_credential_add.js';
import { deploy_credential_default_name } from '../../shared/i18n/paraglide/messages/deploy_credential_default_name.js';
import { deploy_credential_dialog_title } from '../../shared/i18n/paraglide/messages/deploy_credential_dialog_title.js';
import { deploy_credential_key } from '../../shared/i18n/paraglide/messages/deploy_credential_key.js';
import { deploy_credential_key_cannot_push } from '../../shared/i18n/paraglide/messages/deploy_credential_key_cannot_push.js';
import { deploy_credential_key_hint } from '../../shared/i18n/paraglide/messages/deploy_credential_key_hint.js';
import { deploy_credential_key_invalid } from '../../shared/i18n/paraglide/messages/deploy_credential_key_invalid.js';
import { deploy_credential_key_refused } from '../../shared/i18n/paraglide/messages/deploy_credential_key_refused.js';
import { deploy_credential_keys_page } from '../../shared/i18n/paraglide/messages/deploy_credential_keys_page.js';
import { deploy_credential_name } from '../../shared/i18n/paraglide/messages/deploy_credential_name.js';
import { deploy_credential_name_hint } from '../../shared/i18n/paraglide/messages/deploy_credential_name_hint.js';
import { deploy_credential_provider } from '../../shared/i18n/paraglide/messages/deploy_credential_provider.js';
import { deploy_credential_steam_unsupported } from '../../shared/i18n/paraglide/messages/deploy_credential_steam_unsupported.js';
import { dialog_error_message } from '../../shared/i18n/paraglide/messages/dialog_error_message.js';
import { FormField } from '../components/form-field.tsx';
import { RadioChoices } from '../components/radio-choices.tsx';
import { deployProviderLabels, itchKeysPage } from '../lib/deploy-providers.ts';
import { errorText, toDisplayError } from '../lib/errors.ts';
import { rich, slot } from '../lib/i18n/rich.tsx';
import { DialogFooter } from './dialog-footer.tsx';
import { trpc } from '../lib/trpc.ts';
import { deployProviderNames, isValidDeployKey, type DeployCredential, type DeployProvider } from '../../shared/schemas/deploy.ts';
import { refusalReasonOf } from '../../shared/refusal-reasons.ts';
import { Modal } from './modal.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  deploy_credential_add,
  deploy_credential_default_name,
  deploy_credential_dialog_title,
  deploy_credential_key,
  deploy_credential_key_cannot_push,
  deploy_credential_key_hint,
  deploy_credential_key_invalid,
  deploy_credential_key_refused,
  deploy_credential_keys_page,
  deploy_credential_name,
  deploy_credential_name_hint,
  deploy_credential_provider,
  deploy_credential_steam_unsupported,
  dialog_error_message,
};

function KeysPageLink() {
  return (
    <a href={itchKeysPage} target="_blank" rel="noopener noreferrer">
      {m.deploy_credential_keys_page()}
    </a>
  );
}

/**
 * The server's refusal in words, by its details.reason: itch.io's two key refusals name the keys page,
 * Steam is not supported; anything else is the catalogued text.
 */
function refusalOf(failure: unknown) {
  const shown = toDisplayError(failure);
  switch (refusalReasonOf(shown.details)) {
    case 'key_refused':
      return rich(m.deploy_credential_key_refused({ link: slot('link') }), { link: <KeysPageLink /> });
    case 'key_cannot_push':
      return rich(m.deploy_credential_key_cannot_push({ link: slot('link') }), { link: <KeysPageLink /> });
    case 'steam_not_supported':
      return m.deploy_credential_steam_unsupported();
    default:
      return m.dialog_error_message({ text: errorText(shown) });
  }
}

/**
 * Spec §2 'add deploy credential': a title (empty: the server names it 'Key {n}'), the storefront (itch.io;
 * Steam shown with why it is refused) and the key, a password field whose value is sent once and never shown
 * again. Add stays disabled until the key has the provider's form (§5: itch, exactly 40 letters and digits).
 * Closes with the created credential, or null when cancelled.
 */
export function AddDeployCredentialDialog({ nextNumber, onClose }: { nextNumber: number; onClose: (created: DeployCredential | null) => void }) {
  const create = trpc.deploys.credentials.create.useMutation();
  const problemId = useId();
  const [title, setTitle] = useState('');
  const [provider, setProvider] = useState<DeployProvider>('itch');
  const [key, setKey] = useState('');
  const [refusal, setRefusal] = useState<ReturnType<typeof refusalOf> | undefined>();
  const keyValid = provider === 'itch' && isValidDeployKey(provider, key);
  const keyProblem = provider === 'itch' && key !== '' && !keyValid ? m.deploy_credential_key_invalid({ count: String(key.length) }) : undefined;
  const defaultName = m.deploy_credential_default_name({ n: String(nextNumber) });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!keyValid || create.isPending) return;
    setRefusal(undefined);
    try {
      onClose(await create.mutateAsync({ title: title.trim() || undefined, provider, key }));
    } catch (failure) {
      setRefusal(refusalOf(failure));
    }
  };

  return (
    <Modal title={m.deploy_credential_dialog_title()} onCancel={() => onClose(null)} className="deploy_credential_dialog">
      <form className="dialog_form" onSubmit={(event) => void submit(event)} noValidate>
        <FormField label={m.deploy_credential_name()} hint={m.deploy_credential_name_hint({ name: defaultName })}>
          {(control) => (
            <input {...control} name="title" className="input" maxLength={64} placeholder={defaultName} value={title} data-autofocus onChange={(event) => setTitle(event.currentTarget.value)} />
          )}
        </FormField>
        <fieldset className="field">
          <legend>{m.deploy_credential_provider()}</legend>
          <RadioChoices
            name="provider"
            options={deployProviderNames
              .slice()
              .reverse()
              .map((name) => ({ value: name, label: deployProviderLabels[name] }))}
            selected={provider}
            onSelect={(chosen) => {
              setProvider(chosen);
              setKey('');
            }}
          />
          {provider === 'steam' ? (
            <p className="notice" role="note">
              {m.deploy_credential_steam_unsupported()}
            </p>
          ) : null}
        </fieldset>
        {provider === 'itch' ? (
          <FormField label={m.deploy_credential_key()} hint={rich(m.deploy_credential_key_hint({ link: slot('link') }), { link: <KeysPageLink /> })} error={keyProblem}>
            {(control) => (
              // Uncontrolled: React would copy a controlled value into the value attribute, and the key stays out of the DOM's markup.
              <input
                {...control}
                name="key"
                type="password"
                className="input"
                autoComplete="off"
                spellCheck={false}
                maxLength={512}
                onChange={(event) => setKey(event.currentTarget.value.trim())}
              />
            )}
          </FormField>
        ) : null}
        <DialogFooter problem={refusal} problemId={problemId} onCancel={() => onClose(null)} submit={{ label: m.deploy_credential_add(), disabled: !keyValid, pending: create.isPending }} />
      </form>
    </Modal>
  );
}
