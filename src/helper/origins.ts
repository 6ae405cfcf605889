/**
 * Origins as browsers send them in the Origin header: `scheme://host[:port]`, lowercase host, default
 * port left out. Only http and https pages can be trusted (not `null`, file: or extensions).
 */
export function parseOrigin(text: string): string | undefined {
  if (text.length > 2048 || !/^https?:\/\//i.test(text)) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) return undefined;
  return url.origin;
}

/** For the command line: the origin of what the user typed (a page's address is accepted: its origin is taken). */
export function originOfUserInput(text: string): string | undefined {
  const trimmed = text.trim();
  if (!/^https?:\/\//i.test(trimmed)) return undefined;
  try {
    const url = new URL(trimmed);
    if (url.username || url.password) return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/** The origin of a URL (package_url), or undefined when it is not an http(s) URL. */
export function originOfUrl(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
