import type { TestUser } from '../../support/accounts.ts';
import type { Team } from '../../support/projects.ts';
import type { TestServer } from '../../support/server.ts';

/** What the REST API answers for a created branch or version (and most other rows). */
export type Item = { id: string; title: string };

/**
 * REST shortcuts for a file's tests. `server` is read on each call: an e2e file starts its server in
 * beforeAll, after the module has made these.
 */
export function restApi(server: () => TestServer) {
  /** Calls the REST API as `user`; anything but 200 throws with the body. */
  async function api<T = Item>(method: string, path: string, user: TestUser, json?: unknown): Promise<T> {
    const response = await server().fetch(path, { method, token: user.token, json });
    if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }
  const base = (team: Team) => `/api/projects/${team.project.id}`;
  return {
    api,
    base,
    /** A branch of the team's project, made by its owner. */
    newBranch: (team: Team, title: string) => api('POST', `${base(team)}/branches`, team.owner, { title }),
    /** A version of the team's project (no packages), made by its owner. */
    newVersion: (team: Team, title: string, description = '') => api('POST', `${base(team)}/versions`, team.owner, { title, description }),
    /** Publishes the version to the branch as the owner. */
    publish: (team: Team, branch: Item, version: Item) => api('POST', `${base(team)}/branches/${branch.id}/versions/${version.id}`, team.owner),
  };
}
