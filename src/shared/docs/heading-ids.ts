/**
 * Ids of a documentation page's headings, as GitHub makes them (github-slugger): lower case, every
 * character but letters, marks, numbers, connector punctuation, spaces and '-' dropped, spaces as '-'.
 * So `[Jobs](#jobs)` in docs/ leads to the same section on GitHub and in the app. Letters of any
 * script stay (`## 手順` is `手順`), so ids of translated pages are stable and readable too; a heading
 * with nothing left (only symbols) is `section`. A repeated slug gets `-1`, `-2`… in page order.
 */
const dropped = /[^\p{L}\p{M}\p{N}\p{Pc} -]/gu;

export function headingSlug(text: string): string {
  return text.trim().toLowerCase().replace(dropped, '').replace(/ /g, '-');
}

/** A slugger for one page: each call gives the next heading's id, unique on that page. */
export function createHeadingIds(): (text: string) => string {
  const seen = new Map<string, number>();
  return (text) => {
    const base = headingSlug(text) || 'section';
    let id = base;
    while (seen.has(id)) {
      const count = seen.get(base)! + 1;
      seen.set(base, count);
      id = `${base}-${count}`;
    }
    seen.set(id, 0);
    return id;
  };
}
