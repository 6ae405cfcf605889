import type { StorePackage, StoreProject } from '../../../shared/schemas/store.ts';
import type { VisitorPlatform } from '../../lib/visitor-platform.ts';

/**
 * Which action the store page offers first (issue 19): a package built for the visitor's system
 * ('Download for Windows'), else a web package ('Play in browser'), else a package the visitor may play
 * in the cloud ('Play in cloud'), else none (the packages list below has everything). No React.
 */

type StoreBranch = StoreProject['branches'][number];

export type PrimaryAction =
  | { kind: 'download'; platform: VisitorPlatform; branch: StoreBranch; pkg: StorePackage }
  | { kind: 'play'; branch: StoreBranch; pkg: StorePackage }
  | { kind: 'cloud'; branch: StoreBranch; pkg: StorePackage }
  | { kind: 'none'; platform: VisitorPlatform | null };

const WEB = 'os:web';

/**
 * Branches to look in, newest publish first (a game's latest release is what a visitor came for); the
 * server's collator order breaks ties.
 */
function byNewest(branches: readonly StoreBranch[]): StoreBranch[] {
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
 * The primary action for a visitor on `platform` (null: a system we offer no downloads for, or
 * unknown). `cloudAllowed(tags)` says whether this visitor may play a package with these tags in the
 * cloud (the privilege, the instance, the tags and a machine online: package-launchers.tsx's cloudPlayReasons).
 */
export function choosePrimaryAction(branches: readonly StoreBranch[], platform: VisitorPlatform | null, cloudAllowed: (tags: readonly string[]) => boolean): PrimaryAction {
  const ordered = byNewest(branches);
  if (platform) {
    const native = first(ordered, (pkg) => pkg.tags.includes(`os:${platform}`));
    if (native) return { kind: 'download', platform, ...native };
  }
  const web = first(ordered, (pkg) => pkg.tags.includes(WEB));
  if (web) return { kind: 'play', ...web };
  const cloud = first(ordered, (pkg) => cloudAllowed(pkg.tags));
  if (cloud) return { kind: 'cloud', ...cloud };
  return { kind: 'none', platform };
}
