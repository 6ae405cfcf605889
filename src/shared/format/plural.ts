/** Spec §9: the singular form only when the count is exactly 1 (0, 1.5 and -1 are plural), in every language. */
export type PluralForm = 'one' | 'other';

export function pluralForm(count: number): PluralForm {
  return count === 1 ? 'one' : 'other';
}

/** Picks the message for the count: `plural(n, m.item_one, m.item_other)` → a function of `{ count }`. */
export function plural<T>(count: number, one: (params: { count: number }) => T, other: (params: { count: number }) => T): T {
  return pluralForm(count) === 'one' ? one({ count }) : other({ count });
}
