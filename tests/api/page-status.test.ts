/**
 * App pages answer 404 where their screen says "not found" (issue 29: /store/nonexistent answered 200,
 * a soft 404 search engines index): unknown paths, store pages the store does not show, projects the
 * caller cannot see, docs pages that do not exist, /admin for anyone but an administrator. The body is
 * the app shell either way (the client shows its not-found page); known pages stay 200.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createProject, makeTeam, type Team, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { listedProject, type ListedProject } from '../support/store-fixtures.ts';

let server: TestServer;
let admin: TestUser;
let team: Team;
let game: ListedProject;
let hidden: TestProject;
let shell: string;

beforeAll(async () => {
  server = await startTestServer();
  // The first user of an instance is its administrator.
  admin = await registerUser(server);
  team = await makeTeam(server);
  game = await listedProject(server, team.owner, 'Open Game', { platforms: ['linux', 'web'] });
  hidden = await createProject(server, team.owner, 'Hidden Lab');
  shell = await (await server.fetch('/')).text();
}, 120_000);
afterAll(() => server?.stop());

type Caller = { label: string; headers: Record<string, string> };
const anonymous: Caller = { label: 'anonymous', headers: {} };
const cookieOf = (label: string, user: TestUser): Caller => ({ label, headers: { cookie: user.cookie } });

async function statusOf(path: string, caller: Caller = anonymous): Promise<number> {
  const response = await server.fetch(path, { headers: caller.headers });
  const body = await response.text();
  // Both answers are the app shell: the client routes itself and shows its not-found screen.
  expect(response.headers.get('content-type')).toBe('text/html;charset=utf-8');
  expect(body).toContain('<script');
  return response.status;
}

describe('known pages stay 200', () => {
  test('home, store index, docs, sign-in, profile and the other screens', async () => {
    for (const path of ['/', '/store', '/store/', '/store?query=game', '/docs/en/', '/docs/en/api', '/docs/de/api', '/login', '/register', '/me', '/projects', '/local', '/invite?token=x', '/experiment', '/oauth']) {
      expect({ path, status: await statusOf(path) }).toEqual({ path, status: 200 });
    }
  });

  test('a public store page and its listed packages’ play pages, for anyone', async () => {
    const { project, branch, packages } = game;
    for (const caller of [anonymous, cookieOf('outsider', team.outsider), cookieOf('owner', team.owner)]) {
      for (const path of [`/store/${project.id}`, `/store/${project.id}/${branch}/${packages.web}/play`, `/store/${project.id}/${branch}/${packages.linux}/cloud-play`]) {
        expect({ path, caller: caller.label, status: await statusOf(path, caller) }).toEqual({ path, caller: caller.label, status: 200 });
      }
    }
  });
});

describe('what no screen shows is 404', () => {
  test('unknown paths, malformed escapes, extra segments', async () => {
    for (const path of ['/store-nonexistent', '/no/such/page', '/%E0%A4%A', '/a//b', '/me/extra', '/docs', '/projects/', `/store/${game.project.id}/extra/segments`, '/login/x', `/${'x'.repeat(5000)}`]) {
      expect({ path, status: await statusOf(path) }).toEqual({ path, status: path === '/projects/' ? 200 : 404 });
    }
  });

  test('/store/<unknown>, /store/<private> and unlisted play pages, for every caller, with the same bytes', async () => {
    const unknown = await server.fetch('/store/nonexistent');
    expect(unknown.status).toBe(404);
    const unknownBody = await unknown.text();
    const { project, branch, packages } = game;
    const paths = [
      '/store/nonexistent',
      `/store/${hidden.id}`,
      `/store/${hidden.id}/main/pkg/play`,
      `/store/${project.id}/no-branch/${packages.web}/play`,
      `/store/${project.id}/${branch}/no-package/play`,
      `/store/${project.id}/${branch}/${team.project.id}/cloud-play`,
    ];
    for (const caller of [anonymous, cookieOf('outsider', team.outsider), cookieOf('owner', team.owner), cookieOf('admin', admin)]) {
      for (const path of paths) {
        const response = await server.fetch(path, { headers: caller.headers });
        expect({ path, caller: caller.label, status: response.status }).toEqual({ path, caller: caller.label, status: 404 });
        const body = await response.text();
        // The private project is told from an unknown one by nothing (its head is the generic one).
        if (path === `/store/${hidden.id}`) expect(body).toBe(unknownBody);
        expect(body).not.toContain('Hidden Lab');
      }
    }
  });

  test('/projects/<p>: 404 for unknown and for private projects to everyone but their members', async () => {
    const privateProject = team.project.id;
    const cases: [string, Caller, number][] = [
      [`/projects/${privateProject}`, anonymous, 404],
      [`/projects/${privateProject}`, cookieOf('outsider', team.outsider), 404],
      [`/projects/${privateProject}/branches/b1`, cookieOf('outsider', team.outsider), 404],
      [`/projects/${privateProject}/manage`, anonymous, 404],
      [`/projects/${privateProject}`, cookieOf('tester', team.tester), 200],
      [`/projects/${privateProject}/manage`, cookieOf('developer', team.developer), 200],
      [`/projects/${privateProject}/packages/p1/play`, cookieOf('owner', team.owner), 200],
      // An administrator of the instance is no member of the project.
      [`/projects/${privateProject}`, cookieOf('admin', admin), 404],
      // Public: anyone sees its overview.
      [`/projects/${game.project.id}`, anonymous, 200],
      [`/projects/${game.project.id}/branches/${game.branch}`, cookieOf('outsider', team.outsider), 200],
      ['/projects/nonexistent', cookieOf('owner', team.owner), 404],
      ['/projects/nonexistent', anonymous, 404],
    ];
    for (const [path, caller, expected] of cases) {
      expect({ path, caller: caller.label, status: await statusOf(path, caller) }).toEqual({ path, caller: caller.label, status: expected });
    }
  });

  test('a bearer token counts like the cookie; an unknown or malformed session is a visitor', async () => {
    const path = `/projects/${team.project.id}`;
    expect(await statusOf(path, { label: 'bearer', headers: { authorization: `Bearer ${team.owner.token}` } })).toBe(200);
    for (const headers of <Record<string, string>[]>[{ cookie: 'cartridge_session=not-a-session' }, { cookie: `cartridge_session=${'x'.repeat(10_000)}` }, { cookie: 'cartridge_session=%00; other=1' }, { authorization: 'Bearer nope' }, { cookie: 'cartridge_session=' }]) {
      expect(await statusOf(path, { label: 'bad', headers })).toBe(404);
      expect(await statusOf(`/projects/${game.project.id}`, { label: 'bad', headers })).toBe(200);
    }
  });

  test('docs pages that do not exist, and /admin for anyone but an administrator', async () => {
    expect(await statusOf('/docs/en/no-such-page')).toBe(404);
    expect(await statusOf('/docs/en/..%2F..%2Fetc%2Fpasswd')).toBe(404);
    expect(await statusOf('/docs/not a language!/')).toBe(404);
    expect(await statusOf('/admin')).toBe(404);
    expect(await statusOf('/admin', cookieOf('owner', team.owner))).toBe(404);
    expect(await statusOf('/admin', cookieOf('admin', admin))).toBe(200);
  });

  test('hostile ids: NUL, control characters, ids of another shape and a very long path are 404 without a failure', async () => {
    for (const path of ['/store/%00', '/store/a%00b', '/projects/%00', '/projects/a%0d%0ab', '/store/..%2F..', `/store/${'a'.repeat(65)}`, `/projects/${'a'.repeat(65)}`, '/store/%F0%9F%9A%80', `/store/${'x/'.repeat(3000)}`]) {
      expect({ path, status: await statusOf(path) }).toEqual({ path, status: 404 });
    }
    expect(await (await server.fetch('/')).text()).toBe(shell);
  });
});

describe('an instance that requires signing in', () => {
  let closed: TestServer;
  beforeAll(async () => {
    closed = await startTestServer({ AUTH_REQUIRED: 'true' });
  }, 60_000);
  afterAll(() => closed?.stop());

  test('a visitor gets 200 for every known path (the sign-in screen) and 404 for unknown ones', async () => {
    for (const path of ['/', '/store/nonexistent', '/projects/nonexistent', '/login', '/docs/en/']) expect({ path, status: (await closed.fetch(path)).status }).toEqual({ path, status: 200 });
    for (const path of ['/no/such/page', '/login/extra']) expect({ path, status: (await closed.fetch(path)).status }).toEqual({ path, status: 404 });
  });

  test('a signed-in user gets the same statuses as on an open instance', async () => {
    const user = await registerUser(closed);
    expect((await closed.fetch('/store/nonexistent', { headers: { cookie: user.cookie } })).status).toBe(404);
    expect((await closed.fetch('/projects/nonexistent', { headers: { cookie: user.cookie } })).status).toBe(404);
    expect((await closed.fetch('/me', { headers: { cookie: user.cookie } })).status).toBe(200);
  });
});
