import { sameTags } from '../../../shared/packages/same-tags.ts';

/**
 * A ready package of the branch's current version: what a new package with the same tags updates
 * (its start file, when set, is preselected in the update: base-start-file.ts).
 */
export type BaseCandidate = { id: string; title: string; tags: string[]; entrypoint?: readonly string[] | null };

/** The candidate whose tags equal `tags` as a set (the CLI's push picks its base the same way); null: a full upload. */
export function chooseBase(candidates: readonly BaseCandidate[], tags: readonly string[]): BaseCandidate | null {
  return candidates.find((candidate) => sameTags(candidate.tags, tags)) ?? null;
}
