import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import type { Project } from '../../src/shared/schemas/projects.ts';
import type { StoreIndexPage } from '../../src/shared/schemas/project-media.ts';
import type { StoreProject } from '../../src/shared/schemas/store.ts';
import { bootDeps, closeDeps } from '../../src/server/boot.ts';
import { loadConfig } from '../../src/server/config.ts';
import { projects } from '../../src/server/db/schema/index.ts';
import { startServer } from '../../src/server/serve.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { addMember, addStar, createApiToken, createProject, makePublic, makeTeam, type Team, type TestProject } from '../support/projects.ts';
import { secondProcessEnv, startTestServer, type TestServer } from '../support/server.ts';
import { listedProject } from '../support/store-fixtures.ts';
import { trpcFailureStatus } from '../support/trpc-failure.ts';

/**
 * A project's store tags (issue 29): PATCH /projects/{project} `storeTags` (tRPC projects.patch), the
 * rule of src/shared/schemas/store-tags.ts, patchProject (admins and the owner) to set them; the project
 * reply and the store page carry them, normalised, in the order set; the store index search matches
 * them. Runs on PGlite, and on PostgreSQL with DATABASE_URL (there also across two processes).
 */
let server: TestServer;
let team: Team;
let starred: TestUser;
let pending: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  team = await makeTeam(server);
  [starred, pending] = [await registerUser(server), await registerUser(server)];
}, 30_000);
afterAll(() => server?.stop());

type Auth = { token: string } | { cookie: string } | null;
const as = (user: TestUser): Auth => ({ token: user.token });

function patch(projectId: string, body: unknown, auth: Auth = as(team.owner)): Promise<Response> {
  const path = `/api/projects/${projectId}`;
  if (auth && 'cookie' in auth) return server.fetch(path, { method: 'PATCH', json: body, headers: { cookie: auth.cookie, origin: server.url } });
  return server.fetch(path, { method: 'PATCH', json: body, token: auth?.token });
}

async function tagsInDatabase(projectId: string): Promise<string[]> {
  const [row] = await server.deps.db.select({ storeTags: projects.storeTags }).from(projects).where(eq(projects.id, projectId));
  return row!.storeTags;
}

async function expectRefused(response: Response, status: number, body: unknown): Promise<void> {
  expect({ status: response.status, body: await response.json() }).toEqual({ status, body });
}

/** A project of the team's owner with every kind of caller: the team's members, a starred outsider, a pending member. */
async function teamProject(visibility: 'private' | 'public', tags: string[] = ['kept']): Promise<TestProject> {
  const project = await createProject(server, team.owner);
  await addMember(server, project, team.admin, 'admin');
  await addMember(server, project, team.developer, 'developer');
  await addMember(server, project, team.tester, 'tester');
  await addMember(server, project, pending, 'tester', { pending: true });
  if (visibility === 'public') await makePublic(server, project, team.owner);
  await addStar(server, project, starred);
  expect((await patch(project.id, { storeTags: tags })).status).toBe(200);
  return project;
}

describe('setting the tags', () => {
  test('normalised, in the order given; GET project, tRPC and my projects list carry them; [] clears', async () => {
    const project = await createProject(server, team.owner);
    expect(((await (await server.fetch(`/api/projects/${project.id}`, { token: team.owner.token })).json()) as Project).storeTags).toEqual([]);

    const response = await patch(project.id, { storeTags: ['  Puzzle ', 'CO-OP', 'Visual   Novel', 'ＲＰＧ', 'パズル', 'ролевая игра'] });
    expect(response.status).toBe(200);
    const expected = ['puzzle', 'co-op', 'visual novel', 'rpg', 'パズル', 'ролевая игра'];
    expect(((await response.json()) as Project).storeTags).toEqual(expected);
    expect(await tagsInDatabase(project.id)).toEqual(expected);
    await addMember(server, project, team.tester, 'tester');
    expect(((await (await server.fetch(`/api/projects/${project.id}`, { token: team.tester.token })).json()) as Project).storeTags).toEqual(expected);
    expect((await server.trpc(team.owner.token).projects.get.query({ project: project.id })).storeTags).toEqual(expected);
    const mine = (await (await server.fetch('/api/users/me/projects', { token: team.owner.token })).json()) as Project[];
    expect(mine.find((item) => item.id === project.id)?.storeTags).toEqual(expected);

    expect(((await (await patch(project.id, { storeTags: [] })).json()) as Project).storeTags).toEqual([]);
    expect(await tagsInDatabase(project.id)).toEqual([]);
  });

  test('ten tags of 24 characters are taken; other fields in the same patch apply; a patch without storeTags keeps them', async () => {
    const project = await createProject(server, team.owner);
    const ten = Array.from({ length: 10 }, (_, i) => `${String(i).padStart(2, '0')}${'x'.repeat(22)}`);
    const response = await patch(project.id, { title: 'Tagged', storeTags: ten });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ title: 'Tagged', storeTags: ten });
    const renamed = await patch(project.id, { title: 'Renamed' });
    expect(await renamed.json()).toMatchObject({ title: 'Renamed', storeTags: ten });
    await makePublic(server, project, team.owner);
    expect(await tagsInDatabase(project.id)).toEqual(ten);
  });

  test('tRPC projects.patch goes through the same service and rule', async () => {
    const project = await createProject(server, team.owner);
    const client = server.trpc(team.owner.token);
    expect((await client.projects.patch.mutate({ project: project.id, storeTags: [' Strategy', 'Turn-Based '] })).storeTags).toEqual(['strategy', 'turn-based']);
    expect(await tagsInDatabase(project.id)).toEqual(['strategy', 'turn-based']);
    for (const storeTags of [['a\u0000b'], ['rpg', ' RPG'], Array.from({ length: 11 }, (_, i) => `t${i}`), ['c++'], ['x'.repeat(25)]]) {
      expect({ storeTags, failure: await trpcFailureStatus(client.projects.patch.mutate({ project: project.id, storeTags })) }).toEqual({
        storeTags,
        failure: { code: 'bad_param', httpStatus: 400 },
      });
    }
    expect(await trpcFailureStatus(client.projects.patch.mutate({ project: project.id, storeTags: 'rpg' as unknown as string[] }))).toEqual({ code: 'bad_param', httpStatus: 400 });
    expect(await tagsInDatabase(project.id)).toEqual(['strategy', 'turn-based']);
  });
});

describe('every caller kind', () => {
  const unknownBody = { code: 'not_found', message: 'project not found' };
  const signIn = { code: 'unauthorized', message: 'Sign in first' };
  const refused = { code: 'insufficient_privileges', message: 'Your role in this project does not allow patchProject' };
  type Caller = 'visitor' | 'outsider' | 'starred' | 'pending' | 'tester' | 'developer' | 'admin' | 'owner' | 'admin API token' | "owner's session cookie alone";
  const authOf = async (caller: Caller): Promise<Auth> => {
    switch (caller) {
      case 'visitor':
        return null;
      case 'outsider':
        return as(team.outsider);
      case 'starred':
        return as(starred);
      case 'pending':
        return as(pending);
      case 'admin API token':
        return { token: await createApiToken(server, team.admin) };
      // The cookie is no credential of the API (only GET /auth/session turns it into a bearer): a visitor.
      case "owner's session cookie alone":
        return { cookie: team.owner.cookie };
      default:
        return as(team[caller]);
    }
  };
  const cases: ['private' | 'public', Caller, number, unknown][] = [
    ['private', 'visitor', 404, unknownBody],
    ['private', 'outsider', 404, unknownBody],
    ['private', 'starred', 404, unknownBody],
    ['private', 'pending', 404, unknownBody],
    ['private', 'tester', 403, refused],
    ['private', 'developer', 403, refused],
    ['private', 'admin', 200, null],
    ['private', 'owner', 200, null],
    ['private', 'admin API token', 200, null],
    ['private', "owner's session cookie alone", 404, unknownBody],
    ['public', 'visitor', 401, signIn],
    ['public', 'outsider', 403, refused],
    ['public', 'starred', 403, refused],
    ['public', 'pending', 403, refused],
    ['public', 'tester', 403, refused],
    ['public', 'developer', 403, refused],
    ['public', 'admin', 200, null],
    ['public', 'owner', 200, null],
    ['public', 'admin API token', 200, null],
    ['public', "owner's session cookie alone", 401, signIn],
  ];

  test.each(cases)('%s project, %s → %d', async (visibility, caller, status, body) => {
    const project = await teamProject(visibility);
    const response = await patch(project.id, { storeTags: ['Arcade'] }, await authOf(caller));
    if (status === 200) {
      expect(response.status).toBe(200);
      expect(((await response.json()) as Project).storeTags).toEqual(['arcade']);
      expect(await tagsInDatabase(project.id)).toEqual(['arcade']);
    } else {
      await expectRefused(response, status, body);
      expect(await tagsInDatabase(project.id)).toEqual(['kept']);
    }
  });

  test('tRPC answers the same codes', async () => {
    const hidden = await teamProject('private');
    const shown = await teamProject('public');
    const attempt = (user: TestUser | null, project: TestProject) => trpcFailureStatus(server.trpc(user?.token).projects.patch.mutate({ project: project.id, storeTags: ['arcade'] }));
    expect(await attempt(null, hidden)).toEqual({ code: 'not_found', httpStatus: 404 });
    expect(await attempt(team.outsider, hidden)).toEqual({ code: 'not_found', httpStatus: 404 });
    expect(await attempt(null, shown)).toEqual({ code: 'unauthorized', httpStatus: 401 });
    expect(await attempt(starred, shown)).toEqual({ code: 'insufficient_privileges', httpStatus: 403 });
    expect(await attempt(team.developer, hidden)).toEqual({ code: 'insufficient_privileges', httpStatus: 403 });
    expect(await tagsInDatabase(hidden.id)).toEqual(['kept']);
    expect(await tagsInDatabase(shown.id)).toEqual(['kept']);
  });
});

describe("other projects' ids", () => {
  test("an admin of one project cannot set another's tags; unknown and malformed ids", async () => {
    const mine = await teamProject('private');
    const someoneElse = await registerUser(server);
    const theirs = await createProject(server, someoneElse);
    const theirsPublic = await createProject(server, someoneElse);
    await makePublic(server, theirsPublic, someoneElse);
    for (const project of [theirs, theirsPublic]) expect((await patch(project.id, { storeTags: ['theirs'] }, as(someoneElse))).status).toBe(200);

    const unknown = await patch('nosuchproject000000', { storeTags: ['arcade'] }, as(team.admin));
    const unknownBody = await unknown.json();
    expect({ status: unknown.status, unknownBody }).toEqual({ status: 404, unknownBody: { code: 'not_found', message: 'project not found' } });
    await expectRefused(await patch(theirs.id, { storeTags: ['arcade'] }, as(team.admin)), 404, unknownBody);
    await expectRefused(await patch(theirsPublic.id, { storeTags: ['arcade'] }, as(team.admin)), 403, {
      code: 'insufficient_privileges',
      message: 'Your role in this project does not allow patchProject',
    });
    expect(await trpcFailureStatus(server.trpc(team.admin.token).projects.patch.mutate({ project: theirs.id, storeTags: ['arcade'] }))).toEqual({ code: 'not_found', httpStatus: 404 });
    for (const id of ['a%00b', 'a%0Ab', '..%2F..%2Fetc', 'x'.repeat(65), '%E2%80%AE']) {
      await expectRefused(await patch(id, { storeTags: ['arcade'] }, as(team.admin)), 400, { code: 'bad_param', message: 'Invalid `project`' });
    }
    expect(await tagsInDatabase(theirs.id)).toEqual(['theirs']);
    expect(await tagsInDatabase(theirsPublic.id)).toEqual(['theirs']);
    expect(await tagsInDatabase(mine.id)).toEqual(['kept']);
  });
});

describe('hostile input', () => {
  let project: TestProject;
  beforeAll(async () => {
    project = await teamProject('public', ['kept']);
  });

  const invalid = (field: string) => ({ code: 'bad_param', message: `Invalid \`${field}\`` });
  const nested = (depth: number): unknown => (depth === 0 ? 'rpg' : [nested(depth - 1)]);

  test.each([
    ['a string', 'rpg'],
    ['a number', 5],
    ['null', null],
    ['a boolean', true],
    ['an object', { 0: 'rpg' }],
    ['numbers', [5]],
    ['null items', [null]],
    ['nested arrays', [['rpg']]],
    ['objects', [{ tag: 'rpg' }]],
    ['eleven tags', Array.from({ length: 11 }, (_, i) => `tag${i}`)],
    ['a 25-character tag', ['y'.repeat(25)]],
    ['an empty tag', ['']],
    ['a tag of spaces', ['    ']],
    ['punctuation', ['c++']],
    ['an emoji', ['fun 🎮']],
    ['underscores', ['a_b']],
    ['markup', ['<b>rpg</b>']],
    ['hyphens only', ['--']],
    ['duplicates after normalising', ['RPG', ' rpg ']],
    ['NUL', ['rp\u0000g']],
    ['a line break', ['rpg\n']],
    ['a tab', ['\trpg']],
    ['an escape sequence', ['\u001b[31mred']],
    ['DEL', ['a\u007fb']],
    ['a C1 control', ['a\u0085b']],
    ['an unpaired surrogate', ['a\ud800b']],
    ['a huge tag', ['z'.repeat(900_000)]],
    ['a huge list', Array.from({ length: 100_000 }, () => 'a')],
  ])('storeTags as %s: 400 Invalid `storeTags`, nothing changes', async (_name, storeTags) => {
    await expectRefused(await patch(project.id, { storeTags }), 400, invalid('storeTags'));
    expect(await tagsInDatabase(project.id)).toEqual(['kept']);
  });

  test('missing fields, a body too large, nesting too deep, not JSON', async () => {
    await expectRefused(await patch(project.id, {}), 400, invalid('body'));
    await expectRefused(await patch(project.id, { storeTag: ['rpg'] }), 400, invalid('body'));
    const deep = await patch(project.id, { storeTags: nested(100) });
    expect({ status: deep.status, body: await deep.json() }).toMatchObject({ status: 400, body: invalid('body') });
    const tooLarge = await patch(project.id, { storeTags: ['z'.repeat(1_100_000)] });
    expect(tooLarge.status).toBe(413);
    const notJson = await server.fetch(`/api/projects/${project.id}`, { method: 'PATCH', token: team.owner.token, headers: { 'content-type': 'text/plain' }, body: 'storeTags=rpg' });
    expect(notJson.status).toBe(415);
    expect(await tagsInDatabase(project.id)).toEqual(['kept']);
  });

  test('NUL and controls over tRPC are bad_param too', async () => {
    const client = server.trpc(team.owner.token);
    for (const storeTags of [['a\u0000'], ['a\u001f'], [nested(3)], { length: 1 }]) {
      expect(await trpcFailureStatus(client.projects.patch.mutate({ project: project.id, storeTags: storeTags as string[] }))).toEqual({ code: 'bad_param', httpStatus: 400 });
    }
    expect(await tagsInDatabase(project.id)).toEqual(['kept']);
  });
});

describe('the store page', () => {
  const storePage = async (projectId: string, token?: string) => {
    const response = await server.fetch(`/api/store/projects/${projectId}`, { token });
    expect(response.status).toBe(200);
    return (await response.json()) as StoreProject;
  };

  test('carries the tags, and shows a change at once (cached pages are dropped)', async () => {
    const project = await teamProject('public', ['Horror', 'Survival']);
    // Read first: the page is cached for visitors and signed-in callers alike.
    expect((await storePage(project.id)).storeTags).toEqual(['horror', 'survival']);
    expect((await server.trpc().store.project.query({ project: project.id })).storeTags).toEqual(['horror', 'survival']);
    expect((await patch(project.id, { storeTags: ['survival', 'Co-op'] })).status).toBe(200);
    expect((await storePage(project.id)).storeTags).toEqual(['survival', 'co-op']);
    expect((await storePage(project.id, team.outsider.token)).storeTags).toEqual(['survival', 'co-op']);
    expect((await server.trpc(team.tester.token).store.project.query({ project: project.id })).storeTags).toEqual(['survival', 'co-op']);
    // The admin's API token writes too; a refused write changes nothing on the page.
    expect((await patch(project.id, { storeTags: [] }, { token: await createApiToken(server, team.admin) })).status).toBe(200);
    expect((await storePage(project.id)).storeTags).toEqual([]);
    expect((await patch(project.id, { storeTags: ['spam'] }, as(team.developer))).status).toBe(403);
    expect((await storePage(project.id)).storeTags).toEqual([]);
  });

  test('a private project with tags is not on the store', async () => {
    const project = await teamProject('private', ['secret']);
    const response = await server.fetch(`/api/store/projects/${project.id}`, { token: team.owner.token });
    expect({ status: response.status, body: await response.json() }).toEqual({ status: 404, body: { code: 'not_found', message: 'project not found' } });
  });
});

describe('the store index search', () => {
  let wordCounter = 0;
  /** A word no other project's title or tags hold. */
  const uniqueWord = () => `q${++wordCounter}${Math.random().toString(36).slice(2, 8)}`;
  const search = async (query: string, token?: string, base = server.url): Promise<string[]> => {
    const response = await fetch(`${base}/api/store/projects?${new URLSearchParams({ query })}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    expect(response.status).toBe(200);
    return ((await response.json()) as StoreIndexPage).items.map((item) => item.title);
  };

  test('finds projects by their tags, a word of the title and one of a tag together, without regard to case or accents', async () => {
    const word = uniqueWord();
    const listed = await listedProject(server, team.owner, `Star ${word}`);
    const genre = uniqueWord();
    expect(await search(genre)).toEqual([]);
    expect((await patch(listed.project.id, { storeTags: [`${genre} Épique`, 'Co-op'] })).status).toBe(200);
    expect(await search(genre)).toEqual([`Star ${word}`]);
    expect(await search(`${genre.toUpperCase()} EPIQUE`)).toEqual([`Star ${word}`]);
    // Part of a tag, as part of a title matches; a title word and a tag word together.
    expect(await search(genre.slice(0, -2))).toEqual([`Star ${word}`]);
    expect(await search(`${word} épique`)).toEqual([`Star ${word}`]);
    expect(await search(`${word} co-op`)).toEqual([`Star ${word}`]);
    expect((await server.trpc().store.index.query({ query: genre })).items.map((item) => item.id)).toEqual([listed.project.id]);
    // No word matches across the title and a tag, or across two tags.
    expect(await search(`${word}${genre}`)).toEqual([]);
    expect(await search(`épiqueco`)).toEqual(expect.not.arrayContaining([`Star ${word}`]));
    // Every word must occur somewhere.
    expect(await search(`${genre} ${uniqueWord()}`)).toEqual([]);
  });

  test('the cached index follows every change of the tags; refused writes and private projects show nothing', async () => {
    const word = uniqueWord();
    const listed = await listedProject(server, team.owner, `Moon ${word}`);
    await addMember(server, listed.project, team.developer, 'developer');
    const [first, second] = [uniqueWord(), uniqueWord()];
    expect((await patch(listed.project.id, { storeTags: [first] })).status).toBe(200);
    // Read as a visitor: the list is now cached.
    expect(await search(first)).toEqual([`Moon ${word}`]);
    expect((await patch(listed.project.id, { storeTags: [second] }, { token: await createApiToken(server, team.owner) })).status).toBe(200);
    expect(await search(first)).toEqual([]);
    expect(await search(second)).toEqual([`Moon ${word}`]);
    expect((await patch(listed.project.id, { storeTags: [first] }, as(team.developer))).status).toBe(403);
    expect(await search(first)).toEqual([]);
    expect((await patch(listed.project.id, { storeTags: [] })).status).toBe(200);
    expect(await search(second)).toEqual([]);
    // A private project's tags are found by nobody, members included.
    expect((await patch(listed.project.id, { storeTags: [second], isPublic: false })).status).toBe(200);
    expect(await search(second, team.owner.token)).toEqual([]);
    expect((await patch(listed.project.id, { isPublic: true })).status).toBe(200);
    expect(await search(second)).toEqual([`Moon ${word}`]);
  });

  // N processes on one PostgreSQL: tags set through one process reach the other's cached page and index.
  if (process.env.DATABASE_URL) {
    test("two processes: the other process's cached store page and index show the change to a signed-in reader at once", async () => {
      const other = await bootDeps(loadConfig(secondProcessEnv(server)));
      const otherServer = startServer(other, { port: 0, hostname: '127.0.0.1' });
      try {
        const word = uniqueWord();
        const listed = await listedProject(server, team.owner, `Sun ${word}`);
        const [first, second] = [uniqueWord(), uniqueWord()];
        expect((await patch(listed.project.id, { storeTags: [first] })).status).toBe(200);
        const pageThere = async () => ((await (await fetch(`${otherServer.url}/api/store/projects/${listed.project.id}`, { headers: { authorization: `Bearer ${team.outsider.token}` } })).json()) as StoreProject).storeTags;
        expect(await pageThere()).toEqual([first]);
        expect(await search(first, team.outsider.token, otherServer.url)).toEqual([`Sun ${word}`]);
        expect((await patch(listed.project.id, { storeTags: [second] })).status).toBe(200);
        // A signed-in read there catches up with every change committed before it (store-cache.ts): no waiting.
        expect(await pageThere()).toEqual([second]);
        expect(await search(second, team.outsider.token, otherServer.url)).toEqual([`Sun ${word}`]);
        expect(await search(first, team.outsider.token, otherServer.url)).toEqual([]);
      } finally {
        await otherServer.stop();
        await closeDeps(other);
      }
    });
  }
});
