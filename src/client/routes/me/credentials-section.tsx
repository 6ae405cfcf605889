import { useId, useState } from 'react';
import { me_credential_added } from '../../../shared/i18n/paraglide/messages/me_credential_added.js';
import { me_credential_last_way_in } from '../../../shared/i18n/paraglide/messages/me_credential_last_way_in.js';
import { me_credential_link } from '../../../shared/i18n/paraglide/messages/me_credential_link.js';
import { me_credential_provider_password } from '../../../shared/i18n/paraglide/messages/me_credential_provider_password.js';
import { me_credential_public } from '../../../shared/i18n/paraglide/messages/me_credential_public.js';
import { me_credential_unlink } from '../../../shared/i18n/paraglide/messages/me_credential_unlink.js';
import { me_credential_unlink_password_text } from '../../../shared/i18n/paraglide/messages/me_credential_unlink_password_text.js';
import { me_credential_unlink_refused_title } from '../../../shared/i18n/paraglide/messages/me_credential_unlink_refused_title.js';
import { me_credential_unlink_text } from '../../../shared/i18n/paraglide/messages/me_credential_unlink_text.js';
import { me_credential_unlink_title } from '../../../shared/i18n/paraglide/messages/me_credential_unlink_title.js';
import { me_credentials_empty } from '../../../shared/i18n/paraglide/messages/me_credentials_empty.js';
import { me_credentials_heading } from '../../../shared/i18n/paraglide/messages/me_credentials_heading.js';
import { me_credentials_intro } from '../../../shared/i18n/paraglide/messages/me_credentials_intro.js';
import { me_session_last_used } from '../../../shared/i18n/paraglide/messages/me_session_last_used.js';
import { me_session_never } from '../../../shared/i18n/paraglide/messages/me_session_never.js';
import { me_password_add } from '../../../shared/i18n/paraglide/messages/me_password_add.js';
import { providerName, ProviderMark } from '../../components/provider-mark.tsx';
import { initialOf, RemotePicture } from '../../components/remote-picture.tsx';
import { EmptyState, ErrorState, LoadingState } from '../../components/states.tsx';
import { openAuthDialog } from '../../dialogs/auth-dialog.tsx';
import { useDialogs } from '../../dialogs/dialog-provider.tsx';
import { toDisplayError } from '../../lib/errors.ts';
import { useLanguage } from '../../lib/i18n/index.ts';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import { useSignInProviders } from '../../lib/instance.ts';
import { trpc } from '../../lib/trpc.ts';
import type { QueryOf } from '../../../shared/api/route.ts';
import type { routes } from '../../../shared/api/routes.ts';
import { formatDate } from '../../../shared/format/date.ts';
import { refusalReasonOf } from '../../../shared/refusal-reasons.ts';
import type { Credential } from '../../../shared/schemas/external-auth.ts';
import { AddPasswordForm } from './add-password-form.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { me_password_add, me_credential_added, me_credential_last_way_in, me_credential_link, me_credential_provider_password, me_credential_public, me_credential_unlink, me_credential_unlink_password_text, me_credential_unlink_refused_title, me_credential_unlink_text, me_credential_unlink_title, me_credentials_empty, me_credentials_heading, me_credentials_intro, me_session_last_used, me_session_never };

type CredentialKey = QueryOf<typeof routes.users.unlinkCredential>;


/** 'GitHub', or the translated name of the password sign-in. */
function providerLabel(provider: string): string {
  return provider === 'password' ? m.me_credential_provider_password() : providerName(provider);
}

/** Only http(s) addresses become links: an address a provider gave must never run script. */
function isWebAddress(address: string | null): address is string {
  if (!address) return false;
  try {
    const protocol = new URL(address).protocol;
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * Spec §2 'me': linked credentials (every way this user signs in) with the public checkboxes (a public
 * account is shown on the store pages of the user's projects), unlinking, linking another account
 * (the authentication dialog, intent link) and adding a password sign-in for users who have none.
 */
export function CredentialsSection() {
  const dialogs = useDialogs();
  const providers = useSignInProviders('link');
  const credentials = trpc.users.credentials.useQuery();
  const hasPassword = credentials.data?.some((credential) => credential.provider === 'password') ?? true;
  const [addingPassword, setAddingPassword] = useState(false);
  const passwordFormId = useId();
  return (
    <section className="section" aria-labelledby="me-credentials">
      <h2 id="me-credentials">{m.me_credentials_heading()}</h2>
      <p className="section_intro">{m.me_credentials_intro()}</p>
      {credentials.isPending ? <LoadingState /> : null}
      {credentials.error ? <ErrorState error={credentials.error} onRetry={() => void credentials.refetch()} /> : null}
      {credentials.data && credentials.data.length === 0 ? <EmptyState icon="keys">{m.me_credentials_empty()}</EmptyState> : null}
      {credentials.data && credentials.data.length > 0 ? (
        <ul className="item_list credential_list" aria-labelledby="me-credentials">
          {credentials.data.map((credential) => (
            <CredentialRow key={`${credential.provider}:${credential.name}`} credential={credential} />
          ))}
        </ul>
      ) : null}
      <div className="actions">
        {providers.length > 0 ? (
          <button type="button" className="button" onClick={() => void openAuthDialog(dialogs, 'link', '/me')}>
            {m.me_credential_link()}
          </button>
        ) : null}
        {hasPassword || addingPassword ? null : (
          <button type="button" className="button" onClick={() => setAddingPassword(true)}>
            {m.me_password_add()}
          </button>
        )}
      </div>
      {addingPassword && !hasPassword ? <AddPasswordForm id={passwordFormId} onClose={() => setAddingPassword(false)} /> : null}
    </section>
  );
}

function CredentialRow({ credential }: { credential: Credential }) {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const patchCredential = trpc.users.patchCredential.useMutation();
  const unlinkCredential = trpc.users.unlinkCredential.useMutation();
  const { language } = useLanguage();
  const [pendingPublic, setPendingPublic] = useState<boolean | undefined>();
  const isPassword = credential.provider === 'password';
  const provider = providerLabel(credential.provider);
  const title = credential.title || credential.name;
  // The server's provider ids are the query's: 'password' or a sign-in provider.
  const key = { provider: credential.provider, name: credential.name } as CredentialKey;

  const setPublic = async (isPublic: boolean) => {
    setPendingPublic(isPublic);
    const saved = await dialogs.attempt(() => patchCredential.mutateAsync({ ...key, isPublic }));
    if (saved) utils.users.credentials.setData(undefined, (list) => list?.map((item) => (item.provider === saved.provider && item.name === saved.name ? saved : item)));
    setPendingPublic(undefined);
  };

  const unlink = async () => {
    const confirmed = await dialogs.confirm({
      title: m.me_credential_unlink_title(),
      message: isPassword
        ? rich(m.me_credential_unlink_password_text({ name: slot('name') }), { name: <bdi>{credential.name}</bdi> })
        : rich(m.me_credential_unlink_text({ provider: slot('provider'), name: slot('name') }), { provider: <bdi>{provider}</bdi>, name: <bdi>{title}</bdi> }),
      confirmLabel: m.me_credential_unlink(),
      danger: true,
      defaultFocus: 'cancel',
    });
    if (!confirmed) return;
    for (;;) {
      try {
        await unlinkCredential.mutateAsync(key);
        break;
      } catch (error) {
        if (isLastWayIn(error)) {
          await dialogs.ok({ title: m.me_credential_unlink_refused_title(), message: m.me_credential_last_way_in() });
          return;
        }
        if ((await dialogs.error(error, { retry: true })) === 'ok') return;
      }
    }
    await utils.users.credentials.invalidate();
  };

  const noPicture = (
    <span className="credential_picture credential_picture_none" aria-hidden="true">
      {isPassword ? <ProviderMark provider="password" /> : initialOf(title)}
    </span>
  );

  return (
    <li className="item credential_item" data-provider={credential.provider} data-credential-name={credential.name}>
      {/* Decorative either way: the account's title follows. */}
      {!isPassword && isWebAddress(credential.profilePictureUrl) ? (
        <RemotePicture className="credential_picture" src={credential.profilePictureUrl} alt="" width={40} height={40} loading="lazy" referrerPolicy="no-referrer" fallback={noPicture} />
      ) : (
        noPicture
      )}
      <div className="item_main">
        <span className="item_title">
          {isWebAddress(credential.profileUrl) ? (
            <a href={credential.profileUrl} rel="noopener noreferrer">
              <bdi>{title}</bdi>
            </a>
          ) : (
            <bdi>{title}</bdi>
          )}
        </span>
        <span className="credential_provider">
          <ProviderMark provider={credential.provider} /> <bdi>{provider}</bdi>
        </span>
        <dl className="item_facts">
          <div>
            <dt>{m.me_credential_added()}</dt>
            <dd>
              <time dateTime={credential.created}>{formatDate(credential.created, language)}</time>
            </dd>
          </div>
          <div>
            <dt>{m.me_session_last_used()}</dt>
            <dd>{credential.lastUsed ? <time dateTime={credential.lastUsed}>{formatDate(credential.lastUsed, language)}</time> : m.me_session_never()}</dd>
          </div>
        </dl>
      </div>
      <div className="credential_actions">
        {isPassword ? null : (
          <label className="choice">
            <input
              type="checkbox"
              checked={pendingPublic ?? credential.isPublic}
              aria-label={`${m.me_credential_public()}: ${provider} ${title}`}
              aria-busy={pendingPublic !== undefined ? true : undefined}
              onChange={(event) => {
                if (pendingPublic === undefined) void setPublic(event.currentTarget.checked);
              }}
            />
            {m.me_credential_public()}
          </label>
        )}
        <button type="button" className="button button_quiet button_danger_text" onClick={() => void unlink()} aria-label={`${m.me_credential_unlink()}: ${provider} ${title}`}>
          {m.me_credential_unlink()}
        </button>
      </div>
    </li>
  );
}

/** The server's refusal to remove the last way to sign in (details.reason 'last_sign_in_method'). */
function isLastWayIn(error: unknown): boolean {
  return refusalReasonOf(toDisplayError(error).details) === 'last_sign_in_method';
}
