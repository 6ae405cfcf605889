import { useState, type MouseEvent } from 'react';
import { Link } from 'wouter';
import { package_page_cloud_play } from '../../../shared/i18n/paraglide/messages/package_page_cloud_play.js';
import { package_page_play_browser } from '../../../shared/i18n/paraglide/messages/package_page_play_browser.js';
import { store_branch_version } from '../../../shared/i18n/paraglide/messages/store_branch_version.js';
import { store_branches_empty } from '../../../shared/i18n/paraglide/messages/store_branches_empty.js';
import { store_install_local } from '../../../shared/i18n/paraglide/messages/store_install_local.js';
import { store_install_local_hint } from '../../../shared/i18n/paraglide/messages/store_install_local_hint.js';
import { store_offers_more } from '../../../shared/i18n/paraglide/messages/store_offers_more.js';
import { store_primary_all } from '../../../shared/i18n/paraglide/messages/store_primary_all.js';
import { store_primary_download } from '../../../shared/i18n/paraglide/messages/store_primary_download.js';
import { store_primary_label } from '../../../shared/i18n/paraglide/messages/store_primary_label.js';
import { store_primary_none } from '../../../shared/i18n/paraglide/messages/store_primary_none.js';
import { store_primary_none_platform } from '../../../shared/i18n/paraglide/messages/store_primary_none_platform.js';
import { Size } from '../../components/size.tsx';
import { tagLabel } from '../../components/tag-labels.ts';
import { useDialogs } from '../../dialogs/dialog-provider.tsx';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import type { LocalAppConnection } from '../../lib/local-app/use-local-app.ts';
import { trpc } from '../../lib/trpc.ts';
import type { StoreProject } from '../../../shared/schemas/store.ts';
import { storeCloudPlayHref } from '../projects/links.ts';
import { connectionReason, localHref, LocalLaunchers } from '../projects/package/local-launchers.tsx';
import type { StoreOffer } from './primary-action.ts';
import { storeDownloadsAnchor } from './store-downloads.tsx';
import { storeDownloadSource, storeInstallable, useStoreVersionId } from './store-installable.ts';
import type { StoreOffers } from './use-store-offers.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  package_page_cloud_play,
  package_page_play_browser,
  store_branch_version,
  store_branches_empty,
  store_install_local,
  store_install_local_hint,
  store_offers_more,
  store_primary_all,
  store_primary_download,
  store_primary_label,
  store_primary_none,
  store_primary_none_platform,
};

type OfferContext = { project: Pick<StoreProject, 'id' | 'title'>; localApp: LocalAppConnection; onPlay: () => void };

/**
 * The store page's card (issue 19, issue 29): every way this visitor can play, least effort first
 * (primary-action.ts): the first as the big button with what it gets (package, version, size), the
 * others under it; then the way to every download. Nothing is fetched until the visitor acts.
 */
export function StorePrimaryAction({ project, offers, onPlay, onAllDownloads }: { project: StoreProject; offers: StoreOffers; onPlay: () => void; onAllDownloads: () => void }) {
  const [first, ...others] = offers.offers;
  const platform = offers.platform;
  const context: OfferContext = { project, localApp: offers.localApp, onPlay };
  const hasPackages = project.branches.some((branch) => branch.packages.length > 0);
  // The local app's offer for a visitor without it is never the first: the download comes before it.
  const setup = others.some((offer) => offer.kind === 'install' && !offer.connected);
  return (
    <section className="store_primary" aria-label={m.store_primary_label()} data-action={first?.kind ?? 'none'} data-platform={platform ?? ''}>
      {first ? (
        <div className="store_offer store_offer_first" data-offer={first.kind}>
          <Offer offer={first} context={context} primary />
          <p className="store_primary_details">
            <bdi>{first.pkg.title}</bdi>
            <span aria-hidden="true"> · </span>
            {rich(m.store_branch_version({ version: slot('version') }), { version: <bdi>{first.branch.versionTitle}</bdi> })}
            {first.pkg.size !== null && first.kind !== 'play' && first.kind !== 'cloud' ? (
              <>
                <span aria-hidden="true"> · </span>
                <Size bytes={first.pkg.size} />
              </>
            ) : null}
          </p>
        </div>
      ) : (
        <p className="store_primary_none">
          {/* Nothing published on a public branch yet: there is no list below to point to. */}
          {!hasPackages ? m.store_branches_empty() : platform ? m.store_primary_none_platform({ platform: tagLabel(`os:${platform}`) }) : m.store_primary_none()}
        </p>
      )}
      {others.length > 0 ? (
        <ul className="store_offers" aria-label={m.store_offers_more()}>
          {others.map((offer) => (
            <li key={offer.kind} className="store_offer" data-offer={offer.kind}>
              <Offer offer={offer} context={context} primary={false} />
            </li>
          ))}
        </ul>
      ) : null}
      {setup ? (
        // Under the row of offers (they sit side by side on phones), tied to the link it explains.
        <p id={installHintId} className="store_offer_hint">
          {installHint(offers.localApp)}
        </p>
      ) : null}
      {hasPackages ? (
        <a
          className="store_primary_all"
          href={`#${storeDownloadsAnchor}`}
          onClick={(event: MouseEvent<HTMLAnchorElement>) => {
            // Opened before the browser scrolls to it, so the jump lands on the open list.
            if (!event.defaultPrevented) onAllDownloads();
          }}
        >
          {m.store_primary_all()}
        </a>
      ) : null}
    </section>
  );
}

function buttonClass(primary: boolean): string {
  return primary ? 'button button_primary store_offer_button store_primary_button' : 'button store_offer_button';
}

function Offer({ offer, context, primary }: { offer: StoreOffer; context: OfferContext; primary: boolean }) {
  switch (offer.kind) {
    case 'play':
      return (
        <button type="button" className={buttonClass(primary)} onClick={context.onPlay}>
          {m.package_page_play_browser()}
        </button>
      );
    case 'cloud':
      return (
        <Link href={storeCloudPlayHref(context.project.id, offer.branch.id, offer.pkg.id)} className={buttonClass(primary)}>
          {m.package_page_cloud_play()}
        </Link>
      );
    case 'install':
      return offer.connected ? <ConnectedInstall offer={offer} context={context} /> : <InstallSetup primary={primary} />;
    case 'download':
      return <DownloadOffer offer={offer} context={context} primary={primary} />;
  }
}

/** The local app answered: Install (with its dialog and percent), and Launch or Update where they apply. */
function ConnectedInstall({ offer, context }: { offer: Extract<StoreOffer, { kind: 'install' }>; context: OfferContext }) {
  const utils = trpc.useUtils();
  const versionId = useStoreVersionId(context.project.id, offer.branch.id);
  const installable = storeInstallable(utils, context.project, offer.branch, versionId, offer.pkg);
  return (
    <ul className="package_launchers store_offer_launchers">
      <LocalLaunchers target={{ packageId: offer.pkg.id, installable }} compact />
    </ul>
  );
}

const installHintId = 'store-install-hint';

/** Why the local app helps, or why the one here does not answer (not trusting this site, too old). */
function installHint(connection: LocalAppConnection): string {
  return connection.status === 'not_trusted' || connection.status === 'outdated' ? connectionReason(connection) : m.store_install_local_hint();
}

/** No local app here (or not trusting this site, or too old): one way to get it (the hint under the offers says why). */
function InstallSetup({ primary }: { primary: boolean }) {
  return (
    <Link href={localHref} className={buttonClass(primary)} aria-describedby={installHintId}>
      {m.store_install_local()}
    </Link>
  );
}

function DownloadOffer({ offer, context, primary }: { offer: Extract<StoreOffer, { kind: 'download' }>; context: OfferContext; primary: boolean }) {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const [busy, setBusy] = useState(false);
  const download = async () => {
    if (busy) return;
    setBusy(true);
    try {
      const source = storeDownloadSource(utils, { project: context.project.id, branch: offer.branch.id, package: offer.pkg.id });
      // The ZIP is an attachment: going to its signed URL downloads it without leaving the page.
      await dialogs.attempt(async () => window.location.assign(await source.zipUrl()));
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className={buttonClass(primary)} aria-busy={busy || undefined} aria-disabled={busy || undefined} onClick={() => void download()}>
      {m.store_primary_download({ platform: tagLabel(`os:${offer.platform}`) })}
    </button>
  );
}
