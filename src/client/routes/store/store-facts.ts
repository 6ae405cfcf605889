import { sortTags } from '../../../shared/packages/tags.ts';
import type { StoreProject } from '../../../shared/schemas/store.ts';
import { byNewest } from './primary-action.ts';

/**
 * What the store page's information table says (issue 29, as itch.io's "More information"), from the
 * store reply alone. No React.
 */
export type StoreFacts = {
  /** The os tags of every package on offer, in tag order, once each ('os:web' included). */
  platforms: string[];
  /** The newest publish: its version's title and when. */
  latest: { versionTitle: string; published: string } | null;
  /** The smallest and largest package (bytes); null when no package has a size. */
  sizes: { min: number; max: number } | null;
  /** The project's own store tags (genre and such: `storeTags`), in the owner's order; empty when none. */
  tags: string[];
};

export function storeFacts(project: StoreProject): StoreFacts {
  const packages = project.branches.flatMap((branch) => branch.packages);
  const platforms = sortTags(new Set(packages.flatMap((pkg) => pkg.tags.filter((tag) => tag.startsWith('os:')))));
  const newest = byNewest(project.branches)[0];
  const sized = packages.map((pkg) => pkg.size).filter((size): size is number => size !== null);
  return {
    platforms,
    latest: newest ? { versionTitle: newest.versionTitle, published: newest.branchVersionPublished } : null,
    sizes: sized.length ? { min: Math.min(...sized), max: Math.max(...sized) } : null,
    tags: project.storeTags,
  };
}

/** A single public branch is the game itself: players see no branch name (issue 29). */
export function namesBranches(project: Pick<StoreProject, 'branches'>): boolean {
  return project.branches.length > 1;
}
