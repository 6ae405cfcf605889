import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { newId } from '../../src/server/db/ids.ts';
import { branches, branchVersions, invites, projects, projectStars, projectUsers, versions } from '../../src/server/db/schema/index.ts';
import { generateToken, hashToken } from '../../src/server/crypto/index.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createApiToken } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Authorisation matrix: every project endpoint × caller × project visibility, each cell on a fresh
 * project so mutations never affect another cell. Branch endpoints have a row for a private and a public
 * branch, so with the two project visibilities they cover spec's three states (private project, public
 * project with a private branch, public branch). Statuses: 200 allowed; 401 sign in first; 403 a
 * caller who may see the project lacks the action; 404 the project is invisible to the caller (no leak:
 * the body equals an unknown project's). Every signed-in cell runs again with an API token of that user.
 */
const callers = ['visitor', 'outsider', 'starred', 'tester', 'developer', 'admin', 'owner'] as const;
type Caller = (typeof callers)[number];
type Visibility = 'private' | 'public';
type Row = [number, number, number, number, number, number, number];

/** One fresh project per cell: its id, a member to act on, and an invite link. */
type Fixture = {
  project: string;
  target: string;
  invite: string;
  inviteToken: string;
  privateBranch: string;
  publicBranch: string;
  /** Current on the public branch. */
  shownVersion: string;
  /** Published to the public branch before shownVersion: visible to all, current nowhere. */
  oldVersion: string;
  /** Current on the private branch only. */
  hiddenVersion: string;
  /** Never published. */
  spareVersion: string;
};

type Endpoint = {
  name: string;
  method: string;
  path: (cell: Fixture) => string;
  body?: (cell: Fixture) => unknown;
  /** What a 404 on the public project names (a private project always answers like an unknown one). */
  hidden?: 'branch' | 'version';
  /** Expected status per caller, in the order of `callers`. */
  expected: Record<Visibility, Row>;
};

//                                   visitor outsider starred tester developer admin owner
const readable: Record<Visibility, Row> = { private: [404, 404, 404, 200, 200, 200, 200], public: [200, 200, 200, 200, 200, 200, 200] };
const adminAction: Record<Visibility, Row> = { private: [404, 404, 404, 403, 403, 200, 200], public: [401, 403, 403, 403, 403, 200, 200] };
const signedInReadable: Record<Visibility, Row> = { private: [401, 404, 404, 200, 200, 200, 200], public: [401, 200, 200, 200, 200, 200, 200] };
const everyone: Record<Visibility, Row> = { private: [200, 200, 200, 200, 200, 200, 200], public: [200, 200, 200, 200, 200, 200, 200] };
const developerAction: Record<Visibility, Row> = { private: [404, 404, 404, 403, 200, 200, 200], public: [401, 403, 403, 403, 200, 200, 200] };
// A private branch of a public project is as invisible to non-members as a private project.
const developerOnPrivateBranch: Record<Visibility, Row> = { private: [404, 404, 404, 403, 200, 200, 200], public: [404, 404, 404, 403, 200, 200, 200] };
const adminOnPrivateBranch: Record<Visibility, Row> = { private: [404, 404, 404, 403, 403, 200, 200], public: [404, 404, 404, 403, 403, 200, 200] };
const membersOnlyEverywhere: Record<Visibility, Row> = { private: [404, 404, 404, 200, 200, 200, 200], public: [404, 404, 404, 200, 200, 200, 200] };
const membersOnly: Record<Visibility, Row> = { private: [404, 404, 404, 200, 200, 200, 200], public: [401, 403, 403, 200, 200, 200, 200] };

const endpoints: Endpoint[] = [
  { name: 'GET project', method: 'GET', path: ({ project: p }) => `/api/projects/${p}`, expected: readable },
  { name: 'PATCH project title', method: 'PATCH', path: ({ project: p }) => `/api/projects/${p}`, body: () => ({ title: 'Renamed' }), expected: adminAction },
  { name: 'PATCH project isPublic false', method: 'PATCH', path: ({ project: p }) => `/api/projects/${p}`, body: () => ({ isPublic: false }), expected: adminAction },
  { name: 'PATCH project storeTags', method: 'PATCH', path: ({ project: p }) => `/api/projects/${p}`, body: () => ({ storeTags: ['puzzle', 'co-op'] }), expected: adminAction },
  {
    name: 'DELETE project',
    method: 'DELETE',
    path: ({ project: p }) => `/api/projects/${p}`,
    expected: { private: [404, 404, 404, 403, 403, 403, 200], public: [401, 403, 403, 403, 403, 403, 200] },
  },
  { name: 'GET quotas', method: 'GET', path: ({ project: p }) => `/api/projects/${p}/quotas`, expected: readable },
  { name: 'GET description', method: 'GET', path: ({ project: p }) => `/api/projects/${p}/description`, expected: readable },
  {
    name: 'PUT description',
    method: 'PUT',
    path: ({ project: p }) => `/api/projects/${p}/description`,
    body: () => ({ markdown: 'hello', lang: 'en', images: [] }),
    expected: adminAction,
  },
  { name: 'GET media', method: 'GET', path: ({ project: p }) => `/api/projects/${p}/media`, expected: readable },
  { name: 'PUT media', method: 'PUT', path: ({ project: p }) => `/api/projects/${p}/media`, body: () => ({ cover: null, screenshots: [] }), expected: adminAction },
  { name: 'GET star', method: 'GET', path: ({ project: p }) => `/api/projects/${p}/star`, expected: signedInReadable },
  { name: 'PUT star', method: 'PUT', path: ({ project: p }) => `/api/projects/${p}/star`, body: () => true, expected: signedInReadable },
  { name: 'GET users', method: 'GET', path: ({ project: p }) => `/api/projects/${p}/users`, expected: membersOnly },
  {
    name: 'PUT users (change a role)',
    method: 'PUT',
    path: ({ project: p }) => `/api/projects/${p}/users`,
    body: ({ target }) => ({ user: target, role: 'developer' }),
    expected: adminAction,
  },
  {
    name: 'PUT users (remove)',
    method: 'PUT',
    path: ({ project: p }) => `/api/projects/${p}/users`,
    body: ({ target }) => ({ user: target }),
    expected: adminAction,
  },
  {
    name: 'POST users/leave',
    method: 'POST',
    path: ({ project: p }) => `/api/projects/${p}/users/leave`,
    expected: { private: [404, 404, 404, 200, 200, 200, 403], public: [401, 403, 403, 200, 200, 200, 403] },
  },
  { name: 'GET invites', method: 'GET', path: ({ project: p }) => `/api/projects/${p}/invites`, expected: adminAction },
  { name: 'POST invites', method: 'POST', path: ({ project: p }) => `/api/projects/${p}/invites`, body: () => ({ seats: 2 }), expected: adminAction },
  { name: 'DELETE invite', method: 'DELETE', path: ({ project: p, invite }) => `/api/projects/${p}/invites/${invite}`, expected: adminAction },
  { name: 'GET branches', method: 'GET', path: ({ project: p }) => `/api/projects/${p}/branches`, expected: readable },
  { name: 'POST branches', method: 'POST', path: ({ project: p }) => `/api/projects/${p}/branches`, body: () => ({ title: 'new' }), expected: developerAction },
  {
    name: 'PATCH branch title (private branch)',
    method: 'PATCH',
    path: ({ project: p, privateBranch }) => `/api/projects/${p}/branches/${privateBranch}`,
    body: () => ({ title: 'renamed' }),
    expected: developerOnPrivateBranch,
  },
  {
    name: 'PATCH branch title (public branch)',
    method: 'PATCH',
    path: ({ project: p, publicBranch }) => `/api/projects/${p}/branches/${publicBranch}`,
    body: () => ({ title: 'renamed' }),
    expected: developerAction,
  },
  {
    name: 'PATCH branch isPublic (private branch)',
    method: 'PATCH',
    path: ({ project: p, privateBranch }) => `/api/projects/${p}/branches/${privateBranch}`,
    body: () => ({ isPublic: true }),
    expected: adminOnPrivateBranch,
  },
  {
    name: 'PATCH branch isPublic (public branch)',
    method: 'PATCH',
    path: ({ project: p, publicBranch }) => `/api/projects/${p}/branches/${publicBranch}`,
    body: () => ({ isPublic: false }),
    expected: adminAction,
  },
  // Retention deletes versions, so setting it needs deleteVersion (admins and the owner).
  {
    name: 'PATCH branch retention (private branch)',
    method: 'PATCH',
    path: ({ project: p, privateBranch }) => `/api/projects/${p}/branches/${privateBranch}`,
    body: () => ({ retention: { quotaCount: 5 } }),
    expected: adminOnPrivateBranch,
  },
  {
    name: 'PATCH branch retention (public branch)',
    method: 'PATCH',
    path: ({ project: p, publicBranch }) => `/api/projects/${p}/branches/${publicBranch}`,
    body: () => ({ retention: { quotaNonCurrentTime: 86_400 } }),
    expected: adminAction,
  },
  {
    name: 'DELETE branch (private branch)',
    method: 'DELETE',
    path: ({ project: p, privateBranch }) => `/api/projects/${p}/branches/${privateBranch}`,
    expected: adminOnPrivateBranch,
  },
  {
    name: 'DELETE branch (public branch)',
    method: 'DELETE',
    path: ({ project: p, publicBranch }) => `/api/projects/${p}/branches/${publicBranch}`,
    expected: adminAction,
  },
  { name: 'GET versions', method: 'GET', path: ({ project: p }) => `/api/projects/${p}/versions`, expected: readable },
  { name: 'POST versions', method: 'POST', path: ({ project: p }) => `/api/projects/${p}/versions`, body: () => ({ title: 'new' }), expected: developerAction },
  { name: 'GET version (public)', method: 'GET', path: ({ project: p, shownVersion: v }) => `/api/projects/${p}/versions/${v}`, expected: readable },
  {
    name: 'GET version (private)',
    method: 'GET',
    path: ({ project: p, hiddenVersion: v }) => `/api/projects/${p}/versions/${v}`,
    hidden: 'version',
    expected: membersOnlyEverywhere,
  },
  {
    name: 'PATCH version (public)',
    method: 'PATCH',
    path: ({ project: p, shownVersion: v }) => `/api/projects/${p}/versions/${v}`,
    body: () => ({ description: 'changed' }),
    expected: developerAction,
  },
  {
    name: 'PATCH version (private)',
    method: 'PATCH',
    path: ({ project: p, hiddenVersion: v }) => `/api/projects/${p}/versions/${v}`,
    body: () => ({ description: 'changed' }),
    hidden: 'version',
    expected: developerOnPrivateBranch,
  },
  { name: 'DELETE version (public, not current)', method: 'DELETE', path: ({ project: p, oldVersion: v }) => `/api/projects/${p}/versions/${v}`, expected: adminAction },
  {
    name: 'DELETE version (unpublished)',
    method: 'DELETE',
    path: ({ project: p, spareVersion: v }) => `/api/projects/${p}/versions/${v}`,
    hidden: 'version',
    expected: adminOnPrivateBranch,
  },
  {
    name: 'GET version branches',
    method: 'GET',
    path: ({ project: p, shownVersion: v }) => `/api/projects/${p}/versions/${v}/branches`,
    expected: readable,
  },
  {
    name: 'GET branch history (public branch)',
    method: 'GET',
    path: ({ project: p, publicBranch: b }) => `/api/projects/${p}/branches/${b}/versions`,
    expected: readable,
  },
  {
    name: 'GET branch history (private branch)',
    method: 'GET',
    path: ({ project: p, privateBranch: b }) => `/api/projects/${p}/branches/${b}/versions`,
    expected: membersOnlyEverywhere,
  },
  {
    name: 'POST publish (public version)',
    method: 'POST',
    path: ({ project: p, publicBranch: b, oldVersion: v }) => `/api/projects/${p}/branches/${b}/versions/${v}`,
    expected: developerAction,
  },
  {
    name: 'POST publish (unpublished version)',
    method: 'POST',
    path: ({ project: p, publicBranch: b, spareVersion: v }) => `/api/projects/${p}/branches/${b}/versions/${v}`,
    hidden: 'version',
    expected: developerOnPrivateBranch,
  },
  // The store is the public face: private projects are not_found even for their members.
  {
    name: 'GET store project',
    method: 'GET',
    path: ({ project: p }) => `/api/store/projects/${p}`,
    expected: { private: [404, 404, 404, 404, 404, 404, 404], public: [200, 200, 200, 200, 200, 200, 200] },
  },
  // The token is the secret: anyone holding it sees the invite, even to a private project.
  { name: 'GET /invites?token', method: 'GET', path: ({ inviteToken }) => `/api/invites?token=${inviteToken}`, expected: everyone },
  {
    name: 'POST /invites?token (join)',
    method: 'POST',
    path: ({ inviteToken }) => `/api/invites?token=${inviteToken}`,
    expected: { private: [401, 200, 200, 409, 409, 409, 409], public: [401, 200, 200, 409, 409, 409, 409] },
  },
];

let server: TestServer;
let people: Record<Exclude<Caller, 'visitor'> | 'target', TestUser>;
let apiTokens: Record<Exclude<Caller, 'visitor'>, string>;
let unknownBody: unknown;

beforeAll(async () => {
  server = await startTestServer();
  await registerUser(server, 'admin'); // the instance administrator; nobody below holds store_publish
  const names = ['outsider', 'starred', 'tester', 'developer', 'admin', 'owner', 'target'] as const;
  const users = await Promise.all(names.map((name) => registerUser(server, `m-${name}`)));
  people = Object.fromEntries(names.map((name, i) => [name, users[i]!])) as typeof people;
  const signedIn = names.filter((name) => name !== 'target');
  const tokens = await Promise.all(signedIn.map((name) => createApiToken(server, people[name])));
  apiTokens = Object.fromEntries(signedIn.map((name, i) => [name, tokens[i]!])) as typeof apiTokens;
  unknownBody = await (await server.fetch('/api/projects/unknownproject', { token: people.outsider.token })).json();
});
afterAll(() => server.stop());

/** A fresh project with the whole cast, straight in the database (fast; the API paths have their own tests). */
async function makeProject(visibility: Visibility): Promise<Fixture> {
  const projectId = newId();
  await server.deps.db.insert(projects).values({ id: projectId, title: 'Matrix', isPublic: visibility === 'public' });
  await server.deps.db.insert(projectUsers).values([
    { projectId, userId: people.owner.id, role: 'admin', isOwner: true },
    { projectId, userId: people.admin.id, role: 'admin' },
    { projectId, userId: people.developer.id, role: 'developer' },
    { projectId, userId: people.tester.id, role: 'tester' },
    { projectId, userId: people.target.id, role: 'tester' },
  ]);
  await server.deps.db.insert(projectStars).values({ projectId, userId: people.starred.id });
  const inviteToken = generateToken('ci');
  const invite = newId();
  await server.deps.db.insert(invites).values({ id: invite, projectId, tokenHash: hashToken(inviteToken), approved: true });
  const privateBranch = newId();
  const publicBranch = newId();
  await server.deps.db.insert(branches).values([
    { id: privateBranch, projectId, title: 'private' },
    { id: publicBranch, projectId, title: 'public', isPublic: true },
  ]);
  const [shownVersion, oldVersion, hiddenVersion, spareVersion] = [newId(), newId(), newId(), newId()];
  await server.deps.db.insert(versions).values([
    { id: oldVersion, projectId, title: 'old' },
    { id: shownVersion, projectId, title: 'shown' },
    { id: hiddenVersion, projectId, title: 'hidden' },
    { id: spareVersion, projectId, title: 'spare' },
  ]);
  await server.deps.db.insert(branchVersions).values([
    { id: newId(), branchId: publicBranch, versionId: oldVersion, publishedAt: new Date(Date.now() - 60_000) },
    { id: newId(), branchId: publicBranch, versionId: shownVersion },
    { id: newId(), branchId: privateBranch, versionId: hiddenVersion },
  ]);
  return { project: projectId, target: people.target.id, invite, inviteToken, privateBranch, publicBranch, shownVersion, oldVersion, hiddenVersion, spareVersion };
}

const cells = endpoints.flatMap((endpoint) =>
  (['private', 'public'] as const).flatMap((visibility) =>
    callers.flatMap((caller, index) => {
      const expected = endpoint.expected[visibility][index]!;
      const viaToken = caller === 'visitor' ? [] : [true];
      return [false, ...viaToken].map((apiToken) => ({ endpoint, visibility, caller, apiToken, expected }));
    }),
  ),
);

describe('projects authorisation matrix', () => {
  test('covers every endpoint, caller and visibility', () => {
    // 45 endpoints × 2 visibilities × (7 callers + 6 API tokens) = 1170
    expect(cells.length).toBe(endpoints.length * 2 * (callers.length + callers.length - 1));
    expect(cells.length).toBe(1170);
  });

  test.each(cells.map((cell) => [`${cell.endpoint.name} | ${cell.visibility} | ${cell.caller}${cell.apiToken ? ' (API token)' : ''} → ${cell.expected}`, cell] as const))(
    '%s',
    async (_name, { endpoint, visibility, caller, apiToken, expected }) => {
      const fixture = await makeProject(visibility);
      const token = caller === 'visitor' ? undefined : apiToken ? apiTokens[caller] : people[caller].token;
      const response = await server.fetch(endpoint.path(fixture), { method: endpoint.method, token, json: endpoint.body?.(fixture) });
      const reply = await response.json();
      expect({ status: response.status, reply }).toMatchObject({ status: expected });
      // A private project answers exactly as an unknown one; a private branch as an unknown branch.
      if (expected === 404 && visibility === 'private') expect(reply).toEqual(unknownBody);
      if (expected === 404 && visibility === 'public') expect(reply).toEqual({ code: 'not_found', message: `${endpoint.hidden ?? 'branch'} not found` });
      if (expected === 401) expect(reply.code).toBe('unauthorized');
      if (expected === 403) expect(reply.code).toBe('insufficient_privileges');
      if (expected === 409) expect(reply.code).toBe('already_member');
    },
  );
});
