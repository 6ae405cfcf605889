/**
 * Route matching of spec §2, kept pure so it can be tested without a DOM.
 *
 * The path after the leading slash is split on '/', each segment decoded with decodeURIComponent
 * (a malformed escape means no match: the not-found page). Routes match one segment at each nesting
 * level: a literal segment matches itself, ':name' matches any non-empty segment and captures it.
 * The empty path is the index (the route whose segment is ''). A route that has children matches the
 * end of the path through its '' child, or through its own view. One trailing slash is accepted
 * ('/me/' is '/me'), so '/docs/en/' reaches the docs index; empty segments elsewhere ('a//b') match
 * nothing. Anything else is not found.
 */
export type Route<V> = {
  /** A literal segment, ':name' for a parameter, or '' for the index of its level. */
  segment: string;
  view?: V;
  children?: readonly Route<V>[];
};

export type RouteMatch<V> = {
  view: V;
  params: Record<string, string>;
  /** The decoded segments of the path ('' for the index). */
  segments: string[];
};

/** Splits and decodes a pathname; undefined when an escape is malformed. */
export function parsePathname(pathname: string): string[] | undefined {
  const withoutSlash = pathname.startsWith('/') ? pathname.slice(1) : pathname;
  const raw = withoutSlash.split('/');
  if (raw.length > 1 && raw[raw.length - 1] === '') raw.pop();
  const decoded: string[] = [];
  for (const segment of raw) {
    try {
      decoded.push(decodeURIComponent(segment));
    } catch {
      return undefined;
    }
  }
  return decoded;
}

export function matchPathname<V>(routes: readonly Route<V>[], pathname: string): RouteMatch<V> | undefined {
  const segments = parsePathname(pathname);
  if (!segments) return undefined;
  const found = matchSegments(routes, segments, {});
  return found && { ...found, segments };
}

function matchSegments<V>(
  routes: readonly Route<V>[],
  segments: readonly string[],
  params: Record<string, string>,
): { view: V; params: Record<string, string> } | undefined {
  const [head, ...rest] = segments;
  if (head === undefined) return undefined;
  for (const route of routes) {
    const captured = matchOne(route.segment, head);
    if (!captured) continue;
    const nextParams = captured.name ? { ...params, [captured.name]: head } : params;
    if (rest.length === 0) {
      const index = route.children?.find((child) => child.segment === '' && child.view !== undefined);
      const view = route.view ?? index?.view;
      if (view !== undefined) return { view, params: nextParams };
      continue;
    }
    if (!route.children) continue;
    const deeper = matchSegments(route.children, rest, nextParams);
    if (deeper) return deeper;
  }
  return undefined;
}

function matchOne(pattern: string, segment: string): { name?: string } | undefined {
  if (pattern.startsWith(':')) return segment === '' ? undefined : { name: pattern.slice(1) };
  return pattern === segment ? {} : undefined;
}
