import { z } from 'zod';

/**
 * Package tags of spec §3, as 'group:value'. The table's key order is the group order and each list's
 * order is the value order: normalised tag lists, default titles and itch channels follow it.
 *
 * Every group accepts several values: a jar runs on windows, linux and macos; a macOS universal binary
 * is x86 and arm; an installer may carry 32 and 64-bit builds; one package may hold client and server.
 * The only cross-group rule is that distro values need os:linux.
 */
export const tagGroups = {
  os: ['windows', 'linux', 'macos', 'android', 'ios', 'web'],
  arch: ['x86', 'arm'],
  bits: ['32', '64'],
  packaging: ['installer', 'deb', 'rpm', 'flatpak'],
  component: ['client', 'server'],
  runtime: ['nodejs', 'java'],
  distro: ['ubuntu', 'fedora', 'arch', 'nixos'],
} as const satisfies Record<string, readonly string[]>;

export type TagGroup = keyof typeof tagGroups;
export type TagValue<G extends TagGroup = TagGroup> = (typeof tagGroups)[G][number];
export type PackageTag = { [G in TagGroup]: `${G}:${TagValue<G>}` }[TagGroup];

export const tagGroupNames = Object.keys(tagGroups) as TagGroup[];
/** Every valid tag in normalised order. */
export const allPackageTags: readonly PackageTag[] = tagGroupNames.flatMap((group) =>
  tagGroups[group].map((value) => `${group}:${value}` as PackageTag),
);
const MAX_PACKAGE_TAGS = 20;
/** The tag distro values depend on. */
export const LINUX_TAG: PackageTag = 'os:linux';

type TagProblemReason = 'unknown_group' | 'unknown_value' | 'distro_without_linux' | 'duplicate';
export type TagProblem = { tag: string; reason: TagProblemReason };
export type ParsedTag = { ok: true; tag: PackageTag; group: TagGroup; value: TagValue } | { ok: false; reason: 'unknown_group' | 'unknown_value' };
export type TagValidation = { ok: true; tags: PackageTag[] } | { ok: false; problem: TagProblem };

function isTagGroup(name: string): name is TagGroup {
  return Object.hasOwn(tagGroups, name);
}

/** Exact and case-sensitive: 'os:linux' is a tag, 'OS:Linux' and ' os:linux' are not. */
export function parseTag(text: string): ParsedTag {
  const colon = text.indexOf(':');
  const group = colon < 0 ? text : text.slice(0, colon);
  if (!isTagGroup(group)) return { ok: false, reason: 'unknown_group' };
  const value = colon < 0 ? '' : text.slice(colon + 1);
  const values: readonly string[] = tagGroups[group];
  if (!values.includes(value)) return { ok: false, reason: 'unknown_value' };
  return { ok: true, tag: text as PackageTag, group, value: value as TagValue };
}

export function isPackageTag(text: string): text is PackageTag {
  return parseTag(text).ok;
}

const tagRank = new Map<string, number>(allPackageTags.map((tag, i) => [tag, i]));

/** Group order, then value order; unknown strings (if any slip in) go last, in code-unit order. */
export function compareTags(a: string, b: string): number {
  const rankA = tagRank.get(a) ?? Number.MAX_SAFE_INTEGER;
  const rankB = tagRank.get(b) ?? Number.MAX_SAFE_INTEGER;
  if (rankA !== rankB) return rankA - rankB;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A new, deduplicated list in normalised order. */
export function sortTags<T extends string>(tags: Iterable<T>): T[] {
  return [...new Set(tags)].sort(compareTags);
}

/**
 * The first problem in input order (unknown group or value, then a repeated tag), then distro without
 * os:linux; otherwise the tags in normalised order. A repeat is refused rather than silently merged so
 * a typo like 'os:linux,os:linux' (meant: arch:x86) gets noticed.
 */
export function validateTags(tags: readonly string[]): TagValidation {
  const seen = new Set<string>();
  const valid: PackageTag[] = [];
  for (const tag of tags) {
    const parsed = parseTag(tag);
    if (!parsed.ok) return { ok: false, problem: { tag, reason: parsed.reason } };
    if (seen.has(tag)) return { ok: false, problem: { tag, reason: 'duplicate' } };
    seen.add(tag);
    valid.push(parsed.tag);
  }
  if (!seen.has(LINUX_TAG)) {
    const distro = valid.find((tag) => tag.startsWith('distro:'));
    if (distro !== undefined) return { ok: false, problem: { tag: distro, reason: 'distro_without_linux' } };
  }
  return { ok: true, tags: sortTags(valid) };
}

const problemText: Record<TagProblemReason, string> = {
  unknown_group: 'unknown tag group',
  unknown_value: 'unknown tag value',
  distro_without_linux: 'a distro tag needs os:linux',
  duplicate: 'the tag is listed twice',
};

/** English, for API errors and the CLI: "Invalid `tags`: 'os:plan9' (unknown tag value)". */
export function describeTagProblem(problem: TagProblem): string {
  return `Invalid \`tags\`: '${problem.tag}' (${problemText[problem.reason]})`;
}

/**
 * Request schema for tag lists. A refinement, not a transform, so the route's JSON Schema (OpenAPI)
 * stays representable; services call validateTags() again to get the normalised order.
 */
export const packageTagsSchema = z
  .array(z.string().max(64))
  .max(MAX_PACKAGE_TAGS)
  .superRefine((tags, ctx) => {
    const result = validateTags(tags);
    if (!result.ok) ctx.addIssue({ code: 'custom', message: describeTagProblem(result.problem), input: tags });
  });
