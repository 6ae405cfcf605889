import type { StorePackage, StoreProject } from '../../../shared/schemas/store.ts';
import type { VisitorPlatform } from '../../lib/visitor-platform.ts';

/**
 * What the store page's card offers (issue 19, issue 29): every way this visitor can play, least effort
 * first. Play in browser (a web package), Play in cloud (a package this visitor may stream), Install
 * with the local app (a build for their system, where the app runs), Download for their system. The
 * first is the card's big button. No React.
 */

type StoreBranch = StoreProject['branches'][number];

export type StoreOffer =
  | { kind: 'play'; branch: StoreBranch; pkg: StorePackage }
  | { kind: 'cloud'; branch: StoreBranch; pkg: StorePackage }
  | { kind: 'install'; platform: VisitorPlatform; connected: boolean; branch: StoreBranch; pkg: StorePackage }
  | { kind: 'download'; platform: VisitorPlatform; branch: StoreBranch; pkg: StorePackage };

/** Who is looking. */
export type StoreVisitor = {
  /** Their system (null: one we offer no downloads for, or unknown). */
  platform: VisitorPlatform | null;
  /** Whether they may play a package with these tags in the cloud (package-launchers.tsx's cloudPlayReasons). */
  cloudAllowed: (tags: readonly string[]) => boolean;
  /** Whether the local app answered on this page (connected and trusting the site). */
  localAppConnected: boolean;
};

/** The systems the local app is built for (local-app.service.ts: linux, darwin and windows builds). */
const localAppSystems: readonly VisitorPlatform[] = ['linux', 'windows', 'macos'];

const WEB = 'os:web';

/**
 * Branches to look in, newest publish first (a game's latest release is what a visitor came for); the
 * server's collator order breaks ties.
 */
export function byNewest(branches: readonly StoreBranch[]): StoreBranch[] {
  return branches
    .map((branch, index) => ({ branch, index, at: Date.parse(branch.branchVersionPublished) || 0 }))
    .sort((a, b) => b.at - a.at || a.index - b.index)
    .map((entry) => entry.branch);
}

/** A game's own build before its dedicated server or tools (component:server); otherwise the version's order. */
function preferGame(packages: readonly StorePackage[]): StorePackage[] {
  return [...packages].sort((a, b) => Number(a.tags.includes('component:server')) - Number(b.tags.includes('component:server')));
}

function first(branches: StoreBranch[], accept: (pkg: StorePackage) => boolean): { branch: StoreBranch; pkg: StorePackage } | undefined {
  for (const branch of branches) {
    const pkg = preferGame(branch.packages).find(accept);
    if (pkg) return { branch, pkg };
  }
  return undefined;
}

/**
 * The offers for this visitor, in the order the card shows them (empty: nothing for them; the full
 * list of downloads has everything). Installing comes before downloading only when the local app is
 * connected: for a visitor without it, installing the app first is more work than a download, so the
 * download leads and the local app is the offer after it.
 */
export function chooseStoreOffers(branches: readonly StoreBranch[], visitor: StoreVisitor): StoreOffer[] {
  const ordered = byNewest(branches);
  const offers: StoreOffer[] = [];
  const web = first(ordered, (pkg) => pkg.tags.includes(WEB));
  if (web) offers.push({ kind: 'play', ...web });
  const cloud = first(ordered, (pkg) => visitor.cloudAllowed(pkg.tags));
  if (cloud) offers.push({ kind: 'cloud', ...cloud });
  const platform = visitor.platform;
  if (!platform) return offers;
  const native = first(ordered, (pkg) => pkg.tags.includes(`os:${platform}`));
  if (!native) return offers;
  const download: StoreOffer = { kind: 'download', platform, ...native };
  if (!localAppSystems.includes(platform)) return [...offers, download];
  const install: StoreOffer = { kind: 'install', platform, connected: visitor.localAppConnected, ...native };
  return visitor.localAppConnected ? [...offers, install, download] : [...offers, download, install];
}
