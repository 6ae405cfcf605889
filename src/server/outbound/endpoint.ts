/** A service address joined with a path: bases may carry a path of their own (GitLab under /gitlab). */
export function endpoint(base: string, path: string): URL {
  return new URL(`${base.replace(/\/+$/, '')}${path}`);
}
