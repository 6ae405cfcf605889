import { store_credential_picture } from '../../../shared/i18n/paraglide/messages/store_credential_picture.js';
import { store_credentials_label } from '../../../shared/i18n/paraglide/messages/store_credentials_label.js';
import { providerName, ProviderMark } from '../../components/provider-mark.tsx';
import { initialOf, RemotePicture } from '../../components/remote-picture.tsx';
import type { StoreProject } from '../../../shared/schemas/store.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { store_credential_picture, store_credentials_label };

type Credential = StoreProject['owner']['credentials'][number];

/**
 * The owner and the accounts they chose to show publicly (spec §2 'owner with public credentials'): the
 * Developer row of the information table (store-info.tsx), the name over their accounts in a row.
 */
export function StoreOwner({ owner }: { owner: StoreProject['owner'] }) {
  return (
    <div className="store_owner">
      <p className="store_owner_title" data-testid="store-owner">
        <bdi>{owner.title}</bdi>
      </p>
      {owner.credentials.length > 0 ? (
        <ul className="store_credentials" aria-label={m.store_credentials_label({ owner: owner.title })}>
          {owner.credentials.map((credential) => (
            <li key={`${credential.provider}:${credential.name}`} className="store_credential" data-provider={credential.provider}>
              <CredentialItem credential={credential} />
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function CredentialItem({ credential }: { credential: Credential }) {
  const shownName = credential.title || credential.name;
  const picture = credential.profilePictureUrl ? (
    <RemotePicture
      className="store_credential_picture"
      src={credential.profilePictureUrl}
      alt={m.store_credential_picture({ name: shownName })}
      width={32}
      height={32}
      loading="lazy"
      // Decorative when the picture cannot be shown: the name follows.
      fallback={
        <span className="store_credential_picture store_credential_picture_none" aria-hidden="true">
          {initialOf(shownName)}
        </span>
      }
    />
  ) : null;
  return (
    <>
      {picture}
      <ProviderMark provider={credential.provider} />
      <span className="store_credential_provider">
        <bdi>{providerName(credential.provider)}</bdi>
      </span>
      {credential.profileUrl && isWebAddress(credential.profileUrl) ? (
        // The profile is the developer's own content: no ranking credit, no access to this page.
        <a href={credential.profileUrl} rel="ugc nofollow noopener" target="_blank">
          <bdi>{shownName}</bdi>
        </a>
      ) : (
        <bdi>{shownName}</bdi>
      )}
    </>
  );
}

/** Only http(s) addresses become links: a javascript: address from a provider must never run. */
function isWebAddress(address: string): boolean {
  try {
    const protocol = new URL(address).protocol;
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}
