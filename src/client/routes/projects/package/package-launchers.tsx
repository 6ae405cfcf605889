import { Link } from 'wouter';
import { package_page_cloud_needs_privilege } from '../../../../shared/i18n/paraglide/messages/package_page_cloud_needs_privilege.js';
import { package_page_cloud_needs_tags } from '../../../../shared/i18n/paraglide/messages/package_page_cloud_needs_tags.js';
import { package_page_cloud_no_machine } from '../../../../shared/i18n/paraglide/messages/package_page_cloud_no_machine.js';
import { package_page_cloud_play } from '../../../../shared/i18n/paraglide/messages/package_page_cloud_play.js';
import { package_page_cloud_unavailable } from '../../../../shared/i18n/paraglide/messages/package_page_cloud_unavailable.js';
import { package_page_play_browser } from '../../../../shared/i18n/paraglide/messages/package_page_play_browser.js';
import { package_page_play_needs_web } from '../../../../shared/i18n/paraglide/messages/package_page_play_needs_web.js';
import { useMachineOnline } from '../../../cloud-play/availability.ts';
import { tagLongLabel } from '../../../components/tag-labels.ts';
import { useAuth } from '../../../lib/auth/auth.tsx';
import { useInstance } from '../../../lib/instance.ts';
import type { InstanceInfo } from '../../../../shared/schemas/instance.ts';
import { DisabledAction, LocalLaunchers, type LocalTarget } from './local-launchers.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  package_page_cloud_needs_privilege,
  package_page_cloud_needs_tags,
  package_page_cloud_no_machine,
  package_page_cloud_play,
  package_page_cloud_unavailable,
  package_page_play_browser,
  package_page_play_needs_web,
};

export const WEB_TAG = 'os:web';
/** Spec §6: the Cloud play action needs these tags (and the cloud_play privilege). */
const CLOUD_PLAY_TAGS = ['os:linux', 'arch:x86'] as const;

/** The instance offers cloud play: instance info's `cloudPlay` flag where the server sends one, else assumed. */
export function instanceOffersCloudPlay(info: InstanceInfo): boolean {
  return (info as InstanceInfo & { cloudPlay?: boolean }).cloudPlay !== false;
}

/**
 * Why cloud play is off for this package (spec §6: the cloud_play privilege and the tags os:linux and
 * arch:x86; and the instance must offer it; and, when known, a machine must be online now:
 * `machineOnline` false); empty when the player may start it.
 */
export function cloudPlayReasons(tags: readonly string[], privileges: readonly string[], offered = true, machineOnline?: boolean): string[] {
  const reasons: string[] = [];
  if (!offered) reasons.push(m.package_page_cloud_unavailable());
  if (!privileges.includes('cloud_play')) reasons.push(m.package_page_cloud_needs_privilege());
  const missing = CLOUD_PLAY_TAGS.filter((tag) => !tags.includes(tag));
  if (missing.length > 0) reasons.push(m.package_page_cloud_needs_tags({ tags: missing.map(tagLongLabel).join(', ') }));
  if (reasons.length === 0 && machineOnline === false) reasons.push(m.package_page_cloud_no_machine());
  return reasons;
}

/** The no-machine note on its own (the cloud-play page shows it by a disabled Start). */
export const noMachineOnlineText = () => m.package_page_cloud_no_machine();

/** cloudPlayReasons for the signed-in player and this instance (whether a machine is online aside). */
export function useCloudPlayReasons(tags: readonly string[]): string[] {
  const auth = useAuth();
  const instance = useInstance();
  return cloudPlayReasons(tags, auth.session?.userPrivileges ?? [], instanceOffersCloudPlay(instance));
}

/**
 * Where Play in cloud is offered (a package's launchers, the store): useCloudPlayReasons, and once the
 * player could play, whether a machine is online now (asked only then; not known yet: offered).
 */
export function useCloudPlayOfferReasons(tags: readonly string[]): string[] {
  const auth = useAuth();
  const instance = useInstance();
  const privileges = auth.session?.userPrivileges ?? [];
  const offered = instanceOffersCloudPlay(instance);
  const machineOnline = useMachineOnline(cloudPlayReasons(tags, privileges, offered).length === 0);
  return cloudPlayReasons(tags, privileges, offered, machineOnline);
}

/**
 * Play in browser (os:web packages), Install / Launch / Update through the local app (local-launchers.tsx)
 * and Play in cloud (when allowed, spec §6, and a machine is online); an action that cannot be used is
 * shown disabled with its reasons.
 */
export function PackageLaunchers({ tags, playHref, cloudPlayHref, local }: { tags: readonly string[]; playHref: string; cloudPlayHref: string; local: LocalTarget }) {
  const cloudReasons = useCloudPlayOfferReasons(tags);
  const isWeb = tags.includes(WEB_TAG);
  return (
    <ul className="package_launchers">
      {isWeb ? (
        <li className="package_launcher" data-action="play">
          <Link href={playHref} className="button button_primary">
            {m.package_page_play_browser()}
          </Link>
        </li>
      ) : (
        <DisabledAction name="play" label={m.package_page_play_browser()} reasons={[m.package_page_play_needs_web({ tag: tagLongLabel(WEB_TAG) })]} />
      )}
      <LocalLaunchers target={local} />
      {cloudReasons.length === 0 ? (
        <li className="package_launcher" data-action="cloud_play">
          <Link href={cloudPlayHref} className={isWeb ? 'button' : 'button button_primary'}>
            {m.package_page_cloud_play()}
          </Link>
        </li>
      ) : (
        <DisabledAction name="cloud_play" label={m.package_page_cloud_play()} reasons={cloudReasons} />
      )}
    </ul>
  );
}
