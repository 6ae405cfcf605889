/**
 * The query as sent: Elysia splits values at commas and parses ones in brackets or braces as JSON,
 * which would turn a search for "Hello, world" into a list. Runs before validation (transform), so
 * the schema sees strings; a repeated parameter stays a list and is refused.
 */
export function queryAsSent({ query, request }: { query: Record<string, unknown>; request: Request }): void {
  const params = new URL(request.url).searchParams;
  for (const key of Object.keys(query)) delete query[key];
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    query[key] = values.length === 1 ? values[0] : values;
  }
}
