/**
 * JSON whose numeric ids are kept as their exact digits: JSON.parse would round an id above 2^53
 * (JSON.parse source text access hands the reviver each number's source).
 */
export function parseJsonWithExactIds(text: string, idKeys: readonly string[] = ['id']): unknown {
  return JSON.parse(text, function (this: unknown, key: string, value: unknown, context?: { source?: string }) {
    if (typeof value === 'number' && idKeys.includes(key) && context?.source !== undefined) return context.source;
    return value;
  } as (this: unknown, key: string, value: unknown) => unknown);
}
