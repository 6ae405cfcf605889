import { useMemo, useState } from 'react';
import { Link } from 'wouter';
import { package_page_cloud_play } from '../../paraglide/messages/package_page_cloud_play.js';
import { package_page_play_browser } from '../../paraglide/messages/package_page_play_browser.js';
import { store_branch_version } from '../../paraglide/messages/store_branch_version.js';
import { store_primary_all } from '../../paraglide/messages/store_primary_all.js';
import { store_primary_download } from '../../paraglide/messages/store_primary_download.js';
import { store_primary_label } from '../../paraglide/messages/store_primary_label.js';
import { store_primary_none } from '../../paraglide/messages/store_primary_none.js';
import { store_primary_none_platform } from '../../paraglide/messages/store_primary_none_platform.js';
import { Size } from '../../components/size.tsx';
import { tagLabel } from '../../components/tag-labels.ts';
import { useDialogs } from '../../dialogs/dialog-provider.tsx';
import { useAuth } from '../../lib/auth/auth.tsx';
import { useInstance } from '../../lib/instance.ts';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import { trpc } from '../../lib/trpc.ts';
import { detectVisitorPlatform } from '../../lib/visitor-platform.ts';
import type { StoreProject } from '../../../shared/schemas/store.ts';
import { storeCloudPlayHref, storePlayHref } from '../projects/links.ts';
import { cloudPlayReasons, instanceOffersCloudPlay } from '../projects/package/package-launchers.tsx';
import { useMachineOnline } from '../../cloud-play/availability.ts';
import { choosePrimaryAction, type PrimaryAction } from './primary-action.ts';
import { storeDownloadSource } from './store-packages.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  package_page_cloud_play,
  package_page_play_browser,
  store_branch_version,
  store_primary_all,
  store_primary_download,
  store_primary_label,
  store_primary_none,
  store_primary_none_platform,
};

/** The id of the packages section the panel points to. */
export const storePackagesAnchor = 'store-branches';

/**
 * The store page's first call to action (issue 19), chosen for the visitor's system (primary-action.ts):
 * Download for it, Play in browser, or Play in cloud; the package, its version and size under it, and
 * the way to every other package. Nothing is fetched until the visitor acts (but whether a cloud-play
 * machine is online, for a player with the privilege: Play in cloud is chosen only then).
 */
export function StorePrimaryAction({ project }: { project: StoreProject }) {
  const auth = useAuth();
  const instance = useInstance();
  const platform = useMemo(detectVisitorPlatform, []);
  const privileges = auth.session?.userPrivileges ?? [];
  const offered = instanceOffersCloudPlay(instance);
  // Whether a machine is online is asked only of a player who could play in the cloud here.
  const machineOnline = useMachineOnline(offered && privileges.includes('cloud_play'));
  const action = choosePrimaryAction(project.branches, platform, (tags) => cloudPlayReasons(tags, privileges, offered, machineOnline).length === 0);
  const hasPackages = project.branches.some((branch) => branch.packages.length > 0);
  return (
    <section className="store_primary" aria-label={m.store_primary_label()} data-action={action.kind} data-platform={platform ?? ''}>
      {action.kind === 'none' ? (
        <p className="store_primary_none">{platform ? m.store_primary_none_platform({ platform: tagLabel(`os:${platform}`) }) : m.store_primary_none()}</p>
      ) : (
        <>
          <PrimaryButton projectId={project.id} action={action} />
          <p className="store_primary_details">
            <bdi>{action.pkg.title}</bdi>
            <span aria-hidden="true"> · </span>
            {rich(m.store_branch_version({ version: slot('version') }), { version: <bdi>{action.branch.versionTitle}</bdi> })}
            {action.pkg.size !== null ? (
              <>
                <span aria-hidden="true"> · </span>
                <Size bytes={action.pkg.size} />
              </>
            ) : null}
          </p>
        </>
      )}
      {hasPackages ? (
        <a className="store_primary_all" href={`#${storePackagesAnchor}`}>
          {m.store_primary_all()}
        </a>
      ) : null}
    </section>
  );
}

function PrimaryButton({ projectId, action }: { projectId: string; action: Exclude<PrimaryAction, { kind: 'none' }> }) {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const [busy, setBusy] = useState(false);
  if (action.kind === 'play') {
    return (
      <Link href={storePlayHref(projectId, action.branch.id, action.pkg.id)} className="button button_primary store_primary_button">
        {m.package_page_play_browser()}
      </Link>
    );
  }
  if (action.kind === 'cloud') {
    return (
      <Link href={storeCloudPlayHref(projectId, action.branch.id, action.pkg.id)} className="button button_primary store_primary_button">
        {m.package_page_cloud_play()}
      </Link>
    );
  }
  const download = async () => {
    if (busy) return;
    setBusy(true);
    try {
      const source = storeDownloadSource(utils, { project: projectId, branch: action.branch.id, package: action.pkg.id });
      // The ZIP is an attachment: going to its signed URL downloads it without leaving the page.
      await dialogs.attempt(async () => window.location.assign(await source.zipUrl()));
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="button button_primary store_primary_button" aria-busy={busy || undefined} aria-disabled={busy || undefined} onClick={() => void download()}>
      {m.store_primary_download({ platform: tagLabel(`os:${action.platform}`) })}
    </button>
  );
}
