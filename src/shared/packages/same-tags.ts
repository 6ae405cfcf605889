/**
 * Whether two tag lists name the same set (order does not matter). The CLI's push and the browser's
 * new package dialog both pick the branch's current package with the same tags as the base of an
 * update with it.
 */
export function sameTags(a: readonly string[], b: readonly string[]): boolean {
  const left = [...a].sort();
  const right = [...b].sort();
  return left.length === right.length && left.every((tag, i) => tag === right[i]);
}
