import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { deploy_site_add } from '../../shared/i18n/paraglide/messages/deploy_site_add.js';
import { deploy_site_address } from '../../shared/i18n/paraglide/messages/deploy_site_address.js';
import { deploy_site_address_hint_itch } from '../../shared/i18n/paraglide/messages/deploy_site_address_hint_itch.js';
import { deploy_site_address_hint_steam } from '../../shared/i18n/paraglide/messages/deploy_site_address_hint_steam.js';
import { deploy_site_address_invalid_itch } from '../../shared/i18n/paraglide/messages/deploy_site_address_invalid_itch.js';
import { deploy_site_address_invalid_steam } from '../../shared/i18n/paraglide/messages/deploy_site_address_invalid_steam.js';
import { deploy_site_available_none } from '../../shared/i18n/paraglide/messages/deploy_site_available_none.js';
import { deploy_site_choose } from '../../shared/i18n/paraglide/messages/deploy_site_choose.js';
import { deploy_site_credential } from '../../shared/i18n/paraglide/messages/deploy_site_credential.js';
import { deploy_site_dialog_title } from '../../shared/i18n/paraglide/messages/deploy_site_dialog_title.js';
import { deploy_site_no_credentials } from '../../shared/i18n/paraglide/messages/deploy_site_no_credentials.js';
import { deploy_site_profile_link } from '../../shared/i18n/paraglide/messages/deploy_site_profile_link.js';
import { deploy_site_type_address } from '../../shared/i18n/paraglide/messages/deploy_site_type_address.js';
import { dialog_error_message } from '../../shared/i18n/paraglide/messages/dialog_error_message.js';
import { FormField } from '../components/form-field.tsx';
import { RemotePicture } from '../components/remote-picture.tsx';
import { ErrorState, LoadingState } from '../components/states.tsx';
import { deployProviderLabels } from '../lib/deploy-providers.ts';
import { errorText, toDisplayError } from '../lib/errors.ts';
import { rich, slot } from '../lib/i18n/rich.tsx';
import { trpc } from '../lib/trpc.ts';
import { parseDeploySiteAddress, type AvailableSite, type DeployCredential, type DeploySite } from '../../shared/schemas/deploy.ts';
import { Modal } from './modal.tsx';
import { DialogFooter } from './dialog-footer.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  deploy_site_add,
  deploy_site_address,
  deploy_site_address_hint_itch,
  deploy_site_address_hint_steam,
  deploy_site_address_invalid_itch,
  deploy_site_address_invalid_steam,
  deploy_site_available_none,
  deploy_site_choose,
  deploy_site_credential,
  deploy_site_dialog_title,
  deploy_site_no_credentials,
  deploy_site_profile_link,
  deploy_site_type_address,
  dialog_error_message,
};

/** The choice of site: one of the credential's available sites (its address), or a typed address. */
type SiteChoice = { kind: 'available'; site: string } | { kind: 'typed' };

/**
 * Spec §2 'add deploy site': one of the caller's own deploy credentials, then a site picked from the
 * credential's available sites (itch.io games: title and picture) or typed as an address (spec §5 forms,
 * checked with parseDeploySiteAddress as the server does). Add stays disabled until a site is valid.
 * Creates the site and closes with it, or with null when cancelled.
 */
export function AddDeploySiteDialog({ projectId, onClose }: { projectId: string; onClose: (created: DeploySite | null) => void }) {
  const credentials = trpc.deploys.credentials.list.useQuery();
  const create = trpc.deploys.sites.create.useMutation();
  const problemId = useId();
  const [credentialId, setCredentialId] = useState<string | undefined>();
  const [choice, setChoice] = useState<SiteChoice | undefined>();
  const [address, setAddress] = useState('');
  const [serverProblem, setServerProblem] = useState<string | undefined>();

  const list = credentials.data ?? [];
  const credential: DeployCredential | undefined = list.find((item) => item.id === credentialId) ?? list[0];
  const parsed = credential && choice?.kind === 'typed' ? parseDeploySiteAddress(credential.provider, address) : undefined;
  const site = choice?.kind === 'available' ? choice.site : parsed;
  const addressProblem =
    credential && choice?.kind === 'typed' && address.trim() !== '' && parsed === undefined
      ? credential.provider === 'itch'
        ? m.deploy_site_address_invalid_itch()
        : m.deploy_site_address_invalid_steam()
      : undefined;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!credential || site === undefined || create.isPending) return;
    setServerProblem(undefined);
    try {
      onClose(await create.mutateAsync({ project: projectId, credential: credential.id, site }));
    } catch (failure) {
      setServerProblem(m.dialog_error_message({ text: errorText(toDisplayError(failure)) }));
    }
  };

  return (
    <Modal title={m.deploy_site_dialog_title()} onCancel={() => onClose(null)} className="deploy_site_dialog">
      <form className="dialog_form" onSubmit={(event) => void submit(event)} noValidate>
        {credentials.isPending ? <LoadingState /> : null}
        {credentials.error ? <ErrorState error={credentials.error} onRetry={() => void credentials.refetch()} /> : null}
        {credentials.data && list.length === 0 ? (
          <p className="notice">
            {rich(m.deploy_site_no_credentials({ link: slot('link') }), {
              link: (
                <Link href="/me" onClick={() => onClose(null)}>
                  {m.deploy_site_profile_link()}
                </Link>
              ),
            })}
          </p>
        ) : null}
        {credential ? (
          <>
            <FormField label={m.deploy_site_credential()}>
              {(control) => (
                <select
                  {...control}
                  name="credential"
                  className="select"
                  data-autofocus
                  value={credential.id}
                  onChange={(event) => {
                    setCredentialId(event.currentTarget.value);
                    setChoice(undefined);
                  }}
                >
                  {list.map((item) => (
                    <option key={item.id} value={item.id}>
                      {item.title} ({deployProviderLabels[item.provider]})
                    </option>
                  ))}
                </select>
              )}
            </FormField>
            <fieldset className="field">
              <legend>{m.deploy_site_choose()}</legend>
              {credential.provider === 'itch' ? <AvailableSites credentialId={credential.id} choice={choice} onChoose={setChoice} /> : null}
              <label className="choice">
                <input type="radio" name="site" value="" checked={choice?.kind === 'typed'} onChange={() => setChoice({ kind: 'typed' })} /> {m.deploy_site_type_address()}
              </label>
              {choice?.kind === 'typed' ? (
                <FormField
                  label={m.deploy_site_address()}
                  hint={credential.provider === 'itch' ? m.deploy_site_address_hint_itch() : m.deploy_site_address_hint_steam()}
                  error={addressProblem}
                >
                  {(control) => (
                    <input
                      {...control}
                      name="address"
                      className="input"
                      dir="ltr"
                      inputMode="url"
                      autoComplete="off"
                      spellCheck={false}
                      maxLength={300}
                      value={address}
                      onChange={(event) => setAddress(event.currentTarget.value)}
                    />
                  )}
                </FormField>
              ) : null}
            </fieldset>
          </>
        ) : null}
        <DialogFooter
          problem={serverProblem}
          problemId={problemId}
          onCancel={() => onClose(null)}
          submit={{ label: m.deploy_site_add(), disabled: !credential || site === undefined, pending: create.isPending }}
        />
      </form>
    </Modal>
  );
}

/** The credential's itch.io games, each a radio with its picture and title; a game without an address cannot be picked. */
function AvailableSites({ credentialId, choice, onChoose }: { credentialId: string; choice: SiteChoice | undefined; onChoose: (choice: SiteChoice) => void }) {
  const available = trpc.deploys.credentials.availableSites.useQuery({ credential: credentialId });
  if (available.isPending) return <LoadingState />;
  if (available.error) return <ErrorState error={available.error} onRetry={() => void available.refetch()} />;
  if (available.data.length === 0) return <p className="field_hint">{m.deploy_site_available_none()}</p>;
  return (
    <ul className="deploy_available_sites">
      {available.data.map((game: AvailableSite) => (
        <li key={game.id}>
          <label className="choice deploy_available_site">
            <input
              type="radio"
              name="site"
              value={game.site ?? ''}
              disabled={game.site === null}
              checked={choice?.kind === 'available' && choice.site === game.site}
              onChange={() => {
                if (game.site !== null) onChoose({ kind: 'available', site: game.site });
              }}
            />
            {game.pictureUrl ? (
              <RemotePicture className="deploy_available_picture" src={game.pictureUrl} alt="" loading="lazy" referrerPolicy="no-referrer" fallback={<span className="deploy_available_picture" aria-hidden="true" />} />
            ) : (
              <span className="deploy_available_picture" aria-hidden="true" />
            )}
            <span className="deploy_available_text">
              <bdi className="deploy_available_title">{game.title}</bdi>
              {game.site ? (
                <bdi className="deploy_site_address" dir="ltr">
                  {game.site}
                </bdi>
              ) : null}
            </span>
          </label>
        </li>
      ))}
    </ul>
  );
}
