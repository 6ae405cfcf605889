import { maxStoreTags, normaliseStoreTag, storeTagProblem, type StoreTagProblem } from '../../../../shared/schemas/store-tags.ts';

/** Why a typed tag was not added: the shared rule's problems, a repeat, or a full list. */
export type AddTagProblem = { kind: StoreTagProblem } | { kind: 'duplicate'; tag: string } | { kind: 'too_many' };

/**
 * The editor's list after adding what was typed: the shared rule (store-tags.ts) checked here so the
 * owner sees the problem beside the field before anything is sent; the tag is added in its normalised
 * form, which is what the server stores.
 */
export function addStoreTag(tags: readonly string[], typed: string): { tags: string[] } | { problem: AddTagProblem } {
  const problem = storeTagProblem(typed);
  if (problem) return { problem: { kind: problem } };
  const tag = normaliseStoreTag(typed);
  if (tags.includes(tag)) return { problem: { kind: 'duplicate', tag } };
  if (tags.length >= maxStoreTags) return { problem: { kind: 'too_many' } };
  return { tags: [...tags, tag] };
}

export function sameTags(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((tag, index) => tag === b[index]);
}
