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
  /** The project's own tags (genre and such), when it sets any. */
  tags: string[];
};

/**
 * The project's store tags. The field joins the store reply separately (issue 29, task F): read where
 * present, so the table shows tags as soon as the server sends them.
 */
export function storeTagsOf(project: StoreProject): string[] {
  const tags = (project as StoreProject & { storeTags?: unknown }).storeTags;
  return Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string' && tag.trim() !== '') : [];
}

export function storeFacts(project: StoreProject): StoreFacts {
  const packages = project.branches.flatMap((branch) => branch.packages);
  const platforms = sortTags(new Set(packages.flatMap((pkg) => pkg.tags.filter((tag) => tag.startsWith('os:')))));
  const newest = byNewest(project.branches)[0];
  const sized = packages.map((pkg) => pkg.size).filter((size): size is number => size !== null);
  return {
    platforms,
    latest: newest ? { versionTitle: newest.versionTitle, published: newest.branchVersionPublished } : null,
    sizes: sized.length ? { min: Math.min(...sized), max: Math.max(...sized) } : null,
    tags: storeTagsOf(project),
  };
}

/** A single public branch is the game itself: players see no branch name (issue 29). */
export function namesBranches(project: Pick<StoreProject, 'branches'>): boolean {
  return project.branches.length > 1;
}
