import { useMemo } from 'react';
import { useMachineOnline } from '../../cloud-play/availability.ts';
import { useAuth } from '../../lib/auth/auth.tsx';
import { useInstance } from '../../lib/instance.ts';
import { useLocalApp, type LocalAppConnection } from '../../lib/local-app/use-local-app.ts';
import { detectVisitorPlatform, type VisitorPlatform } from '../../lib/visitor-platform.ts';
import type { StoreProject } from '../../../shared/schemas/store.ts';
import { cloudPlayReasons, instanceOffersCloudPlay } from '../projects/package/package-launchers.tsx';
import { chooseStoreOffers, type StoreOffer } from './primary-action.ts';

export type StoreOffers = { offers: StoreOffer[]; platform: VisitorPlatform | null; localApp: LocalAppConnection };

/**
 * The store page's offers for this visitor (primary-action.ts): their system, whether they may play in
 * the cloud (a machine online is asked only of a player with the privilege), and whether the local app
 * answered (asked only in a browser where it answered before: use-local-app.ts). Nothing else is
 * fetched before the visitor acts.
 */
export function useStoreOffers(project: StoreProject): StoreOffers {
  const auth = useAuth();
  const instance = useInstance();
  const local = useLocalApp({ lists: false });
  const platform = useMemo(detectVisitorPlatform, []);
  const privileges = auth.session?.userPrivileges ?? [];
  const offered = instanceOffersCloudPlay(instance);
  const machineOnline = useMachineOnline(offered && privileges.includes('cloud_play'));
  const offers = chooseStoreOffers(project.branches, {
    platform,
    cloudAllowed: (tags) => cloudPlayReasons(tags, privileges, offered, machineOnline).length === 0,
    localAppConnected: local.connected,
  });
  return { offers, platform, localApp: local.connection };
}
