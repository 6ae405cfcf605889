import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { projects, projectStars, projectUsers, userPrivileges, users } from '../../src/server/db/schema/index.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { addMember, addStar, createApiToken, createProject, grantPrivilege, makePublic } from '../support/projects.ts';
import { uploadContentImage } from '../support/content-images.ts';
import { photoLike } from '../support/images.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailure as failure } from '../support/trpc-failure.ts';

let server: TestServer;
let instanceAdmin: TestUser;
beforeAll(async () => {
  server = await startTestServer({ QUOTA_BRANCH_VERSIONS_COUNT: '7' });
  instanceAdmin = await registerUser(server, 'admin');
});
afterAll(() => server.stop());

const ownerActions = [
  'patchProject',
  'createBranch',
  'patchBranch',
  'deleteBranch',
  'publishVersion',
  'patchVersion',
  'deleteVersion',
  'deployVersionToSite',
  'patchPackage',
  'deletePackage',
  'setUser',
  'createInvite',
  'createDeploySite',
  'deleteDeploySite',
  'deleteProject',
];

describe('POST /api/projects', () => {
  test('creates a private project owned by the creator', async () => {
    const user = await registerUser(server);
    const response = await server.fetch('/api/projects', { method: 'POST', token: user.token, json: { title: '  Star Miner ' } });
    expect(response.status).toBe(200);
    const project = await response.json();
    expect(project).toEqual({
      id: expect.stringMatching(/^[a-z0-9]{20}$/),
      title: 'Star Miner',
      isPublic: false,
      storeTags: [],
      userIsOwner: true,
      userIsListed: true,
      userIsPending: false,
      userRole: 'admin',
      userPossibleActions: ownerActions,
      created: expect.any(String),
    });
    const [member] = await server.deps.db.select().from(projectUsers).where(eq(projectUsers.projectId, project.id));
    expect(member).toMatchObject({ userId: user.id, role: 'admin', isOwner: true, pending: false });
  });

  test('needs privilege create_project', async () => {
    const user = await registerUser(server);
    await server.deps.db.delete(userPrivileges).where(eq(userPrivileges.userId, user.id));
    const response = await server.fetch('/api/projects', { method: 'POST', token: user.token, json: { title: 'Nope' } });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ code: 'insufficient_privileges', message: 'Privilege create_project is required' });
  });

  test('a visitor is unauthorized', async () => {
    const response = await server.fetch('/api/projects', { method: 'POST', json: { title: 'Nope' } });
    expect(response.status).toBe(401);
    expect((await response.json()).code).toBe('unauthorized');
  });

  test.each([{}, { title: '' }, { title: '   ' }, { title: 'x'.repeat(101) }, { title: 3 }])('refuses %j, naming the field', async (body) => {
    const user = await registerUser(server);
    const response = await server.fetch('/api/projects', { method: 'POST', token: user.token, json: body });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_param', message: 'Invalid `title`' });
  });

  test('an API token acts as its user', async () => {
    const user = await registerUser(server);
    const token = await createApiToken(server, user);
    const created = await (await server.fetch('/api/projects', { method: 'POST', token, json: { title: 'Bot made' } })).json();
    expect(created.userIsOwner).toBe(true);
    const mine = await (await server.fetch('/api/users/me/projects', { token: user.token })).json();
    expect(mine.map((project: { id: string }) => project.id)).toEqual([created.id]);
  });
});

describe('GET/PATCH/DELETE /api/projects/{project}', () => {
  test('a private project is not_found for outsiders and visitors, never 403', async () => {
    const owner = await registerUser(server);
    const outsider = await registerUser(server);
    const project = await createProject(server, owner);
    for (const token of [outsider.token, undefined]) {
      for (const [method, json] of [['GET'], ['PATCH', { title: 'x' }], ['DELETE']] as const) {
        const response = await server.fetch(`/api/projects/${project.id}`, { method, token, json });
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual({ code: 'not_found', message: 'project not found' });
      }
    }
  });

  test('an unknown project is not_found', async () => {
    const user = await registerUser(server);
    const response = await server.fetch('/api/projects/doesnotexist', { token: user.token });
    expect(response.status).toBe(404);
    expect((await response.json()).code).toBe('not_found');
  });

  test('a too long project id is a bad parameter', async () => {
    const response = await server.fetch(`/api/projects/${'x'.repeat(65)}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_param', message: 'Invalid `project`' });
  });

  test('members see their role and actions', async () => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    const expected = {
      tester: ['leaveProject'],
      developer: ['createBranch', 'patchBranch', 'publishVersion', 'patchVersion', 'patchPackage', 'leaveProject'],
      admin: [...ownerActions.filter((action) => action !== 'deleteProject'), 'leaveProject'],
    } as const;
    for (const role of ['tester', 'developer', 'admin'] as const) {
      const member = await registerUser(server);
      await addMember(server, project, member, role);
      const seen = await (await server.fetch(`/api/projects/${project.id}`, { token: member.token })).json();
      expect(seen).toMatchObject({ userRole: role, userIsOwner: false, userIsListed: true });
      expect([...seen.userPossibleActions].sort()).toEqual([...expected[role]].sort());
    }
  });

  test('a pending member is still an outsider', async () => {
    const owner = await registerUser(server);
    const pending = await registerUser(server);
    const project = await createProject(server, owner);
    await addMember(server, project, pending, 'developer', { pending: true });
    expect((await server.fetch(`/api/projects/${project.id}`, { token: pending.token })).status).toBe(404);
    const mine = await (await server.fetch('/api/users/me/projects', { token: pending.token })).json();
    expect(mine).toEqual([]);
  });

  test('renames with patchProject; developers may not', async () => {
    const owner = await registerUser(server);
    const developer = await registerUser(server);
    const admin = await registerUser(server);
    const project = await createProject(server, owner, 'Old');
    await addMember(server, project, developer, 'developer');
    await addMember(server, project, admin, 'admin');
    const refused = await server.fetch(`/api/projects/${project.id}`, { method: 'PATCH', token: developer.token, json: { title: 'New' } });
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe('insufficient_privileges');
    const renamed = await server.fetch(`/api/projects/${project.id}`, { method: 'PATCH', token: admin.token, json: { title: ' New ' } });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ title: 'New', userRole: 'admin' });
  });

  test.each([
    [{}, 'body'],
    [{ title: '' }, 'title'],
    [{ isPublic: 'yes' }, 'isPublic'],
    [{ title: 5 }, 'title'],
  ])('PATCH refuses %j', async (body, field) => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    const response = await server.fetch(`/api/projects/${project.id}`, { method: 'PATCH', token: owner.token, json: body });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_param', message: `Invalid \`${field}\`` });
  });

  test('making a project public needs store_publish unless it already is public', async () => {
    const owner = await registerUser(server);
    const admin = await registerUser(server);
    const project = await createProject(server, owner);
    await addMember(server, project, admin, 'admin');
    const refused = await server.fetch(`/api/projects/${project.id}`, { method: 'PATCH', token: owner.token, json: { isPublic: true } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ code: 'insufficient_privileges', message: 'Privilege store_publish is required' });
    await grantPrivilege(server, owner, 'store_publish');
    const published = await server.fetch(`/api/projects/${project.id}`, { method: 'PATCH', token: owner.token, json: { isPublic: true } });
    expect((await published.json()).isPublic).toBe(true);
    // Already public: patchProject alone suffices (admin without store_publish), both ways.
    const again = await server.fetch(`/api/projects/${project.id}`, { method: 'PATCH', token: admin.token, json: { isPublic: true, title: 'Both' } });
    expect(await again.json()).toMatchObject({ isPublic: true, title: 'Both' });
    const hidden = await server.fetch(`/api/projects/${project.id}`, { method: 'PATCH', token: admin.token, json: { isPublic: false } });
    expect((await hidden.json()).isPublic).toBe(false);
    const back = await server.fetch(`/api/projects/${project.id}`, { method: 'PATCH', token: admin.token, json: { isPublic: true } });
    expect(back.status).toBe(403);
  });

  test('a public project is visible to visitors and outsiders, read-only', async () => {
    const owner = await registerUser(server);
    const outsider = await registerUser(server);
    const project = await createProject(server, owner);
    await makePublic(server, project, owner);
    const seen = await (await server.fetch(`/api/projects/${project.id}`)).json();
    expect(seen).toMatchObject({ isPublic: true, userRole: null, userIsOwner: false, userIsListed: false, userPossibleActions: [] });
    expect((await server.fetch(`/api/projects/${project.id}`, { token: outsider.token })).status).toBe(200);
    const visitorPatch = await server.fetch(`/api/projects/${project.id}`, { method: 'PATCH', json: { title: 'x' } });
    expect(visitorPatch.status).toBe(401);
    const outsiderPatch = await server.fetch(`/api/projects/${project.id}`, { method: 'PATCH', token: outsider.token, json: { title: 'x' } });
    expect(outsiderPatch.status).toBe(403);
  });

  test('only the owner deletes; everything in the project goes with it', async () => {
    const owner = await registerUser(server);
    const admin = await registerUser(server);
    const project = await createProject(server, owner);
    await addMember(server, project, admin, 'admin');
    await makePublic(server, project, owner);
    await addStar(server, project, admin);
    const refused = await server.fetch(`/api/projects/${project.id}`, { method: 'DELETE', token: admin.token });
    expect(refused.status).toBe(403);
    const deleted = await server.fetch(`/api/projects/${project.id}`, { method: 'DELETE', token: owner.token });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ ok: true });
    expect((await server.fetch(`/api/projects/${project.id}`, { token: owner.token })).status).toBe(404);
    for (const table of [projectUsers, projectStars]) {
      const [row] = await server.deps.db.select({ count: sql<number>`count(*)::int` }).from(table).where(eq(table.projectId, project.id));
      expect(row!.count).toBe(0);
    }
  });
});

describe('GET /api/users/me/projects', () => {
  test('memberships and starred public projects, by title, with roles', async () => {
    const user = await registerUser(server);
    const other = await registerUser(server);
    const own = await createProject(server, user, 'beta');
    const tested = await createProject(server, other, 'Alpha');
    const starredPublic = await createProject(server, other, 'gamma');
    const starredPrivate = await createProject(server, other, 'delta');
    await createProject(server, other, 'Not mine');
    await addMember(server, tested, user, 'tester');
    await makePublic(server, starredPublic, other);
    await addStar(server, starredPublic, user);
    await addStar(server, starredPrivate, user);
    const response = await server.fetch('/api/users/me/projects', { token: user.token });
    expect(response.status).toBe(200);
    const mine = await response.json();
    expect(mine.map((p: { title: string; userRole: string; userIsOwner: boolean; isPublic: boolean }) => [p.title, p.userRole, p.userIsOwner, p.isPublic])).toEqual([
      ['Alpha', 'tester', false, false],
      ['beta', 'admin', true, false],
      ['gamma', 'starred', false, true],
    ]);
    expect(mine[0].userPossibleActions).toEqual(['leaveProject']);
    expect(mine[1].id).toBe(own.id);
    expect(mine[2].userPossibleActions).toEqual([]);
  });

  test('a visitor is unauthorized', async () => {
    expect((await server.fetch('/api/users/me/projects')).status).toBe(401);
  });
});

describe('GET /api/projects/{project}/quotas', () => {
  test('instance defaults, then overrides by an instance administrator', async () => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    const defaults = await (await server.fetch(`/api/projects/${project.id}/quotas`, { token: owner.token })).json();
    expect(defaults).toEqual({ packageSize: 10 * 1024 ** 3, branchVersionsCount: 7, branchVersionsTime: null, branchVersionsNonCurrentTime: 90 * 86_400 });
    const adminClient = server.trpc(instanceAdmin.token);
    const set = await adminClient.admin.setProjectQuotas.mutate({ project: project.id, packageSize: 1000, branchVersionsTime: 86_400, branchVersionsCount: 0 });
    expect(set).toEqual({ packageSize: 1000, branchVersionsCount: null, branchVersionsTime: 86_400, branchVersionsNonCurrentTime: 90 * 86_400 });
    const reset = await adminClient.admin.setProjectQuotas.mutate({ project: project.id, packageSize: null });
    expect(reset.packageSize).toBe(10 * 1024 ** 3);
    expect(reset.branchVersionsTime).toBe(86_400);
    expect(await server.trpc(owner.token).projects.quotas.query({ project: project.id })).toEqual(reset);
  });

  test('only instance administrators override quotas', async () => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    expect(await failure(server.trpc(owner.token).admin.setProjectQuotas.mutate({ project: project.id, packageSize: 1 }))).toMatchObject({
      code: 'insufficient_privileges',
      httpStatus: 403,
    });
    expect(await failure(server.trpc(instanceAdmin.token).admin.setProjectQuotas.mutate({ project: 'unknown', packageSize: 1 }))).toMatchObject({
      code: 'not_found',
    });
    expect(await failure(server.trpc(instanceAdmin.token).admin.setProjectQuotas.mutate({ project: project.id, packageSize: -1 }))).toMatchObject({
      code: 'bad_param',
      message: 'Invalid `packageSize`',
    });
  });

  test('private quotas are not_found for outsiders; public ones are readable', async () => {
    const owner = await registerUser(server);
    const outsider = await registerUser(server);
    const project = await createProject(server, owner);
    expect((await server.fetch(`/api/projects/${project.id}/quotas`, { token: outsider.token })).status).toBe(404);
    await makePublic(server, project, owner);
    expect((await server.fetch(`/api/projects/${project.id}/quotas`)).status).toBe(200);
  });
});

describe('GET/PUT /api/projects/{project}/description', () => {
  const description = {
    markdown: '# Star Miner\n\nDig. ![shot](img:abc)',
    lang: 'pt-BR',
    images: [{ id: 'abc', width: 640, height: 480, scale: 200, url: 'https://example.com/abc.jpg' }],
  };

  test("the markdown is stored as given; the images list only with the project's own images, their sizes the server's", async () => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    const other = await createProject(server, owner);
    expect(await (await server.fetch(`/api/projects/${project.id}/description`, { token: owner.token })).json()).toEqual({ markdown: '', lang: null, images: [] });
    const image = await uploadContentImage(server, owner, project.id, await photoLike(640, 480), 640, 480);
    const foreign = await uploadContentImage(server, owner, other.id, await photoLike(320, 200), 320, 200);
    const wanted = { markdown: `# Star Miner\n\nDig. ![shot](${image.url})`, lang: 'pt-BR', images: [{ id: image.id, width: 640, height: 480, scale: image.scale, url: image.url }] };
    // A wrong size is corrected from the image itself.
    const put = await server.fetch(`/api/projects/${project.id}/description`, { method: 'PUT', token: owner.token, json: { ...wanted, images: [{ ...wanted.images[0], width: 9999, height: 1 }] } });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual(wanted);
    expect(await (await server.fetch(`/api/projects/${project.id}/description`, { token: owner.token })).json()).toEqual(wanted);
    const refusals: [unknown, number][] = [
      [{ markdown: 'x', images: [{ id: 'nosuchimage', width: 1, height: 1, url: '/content-images/nosuchimage/1' }] }, 404],
      [{ markdown: 'x', images: [{ id: foreign.id, width: 320, height: 200, url: foreign.url }] }, 404],
      [{ markdown: 'x', images: [{ id: image.id, width: 640, height: 480, url: 'https://example.com/abc.jpg' }] }, 400],
      [{ markdown: 'x', images: [{ id: image.id, width: 640, height: 480, url: foreign.url }] }, 400],
      [{ markdown: 'x', images: [{ id: image.id, width: 640, height: 480, url: `/content-images/${image.id}/123` }] }, 400],
    ];
    for (const [json, status] of refusals) {
      const refused = await server.fetch(`/api/projects/${project.id}/description`, { method: 'PUT', token: owner.token, json });
      expect({ json, status: refused.status }).toEqual({ json, status });
    }
    expect(await (await server.fetch(`/api/projects/${project.id}/description`, { token: owner.token })).json()).toEqual(wanted);
    const relative = await server.fetch(`/api/projects/${project.id}/description`, {
      method: 'PUT',
      token: owner.token,
      json: { markdown: 'x', images: [{ id: image.id, width: 1, height: 1, url: `/content-images/${image.id}/320` }] },
    });
    expect(await relative.json()).toEqual({ markdown: 'x', lang: null, images: [{ id: image.id, width: 640, height: 480, scale: 100, url: `/content-images/${image.id}/320` }] });
  });

  test('needs patchProject', async () => {
    const owner = await registerUser(server);
    const developer = await registerUser(server);
    const project = await createProject(server, owner);
    await addMember(server, project, developer, 'developer');
    const response = await server.fetch(`/api/projects/${project.id}/description`, { method: 'PUT', token: developer.token, json: description });
    expect(response.status).toBe(403);
    expect((await server.fetch(`/api/projects/${project.id}/description`, { token: developer.token })).status).toBe(200);
  });

  test.each([
    [{}, 'markdown'],
    [{ markdown: 'x'.repeat(100_001) }, 'markdown'],
    [{ markdown: 'x', lang: 'not a language' }, 'lang'],
    [{ markdown: 'x', images: [{ id: 'a', width: 0, height: 1, url: '/u' }] }, 'images'],
    [{ markdown: 'x', images: [{ id: 'a', width: 1, height: 1 }] }, 'images'],
    [{ markdown: 'x', images: Array.from({ length: 201 }, (_, i) => ({ id: `i${i}`, width: 1, height: 1, url: '/u' })) }, 'images'],
  ])('refuses a bad description %#', async (body, field) => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    const response = await server.fetch(`/api/projects/${project.id}/description`, { method: 'PUT', token: owner.token, json: body });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_param', message: `Invalid \`${field}\`` });
  });

  test('tRPC reads and writes the same description', async () => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    const client = server.trpc(owner.token);
    const image = await uploadContentImage(server, owner, project.id, await photoLike(320, 240), 320, 240);
    const withImage = { ...description, images: [{ id: image.id, width: 320, height: 240, scale: 100, url: image.url }] };
    expect(await client.projects.description.put.mutate({ project: project.id, description: withImage })).toEqual(withImage);
    expect(await client.projects.description.get.query({ project: project.id })).toEqual(withImage);
    await expect(client.projects.description.put.mutate({ project: project.id, description })).rejects.toMatchObject({ data: { code: 'not_found' } });
  });
});

describe('GET/PUT /api/projects/{project}/star', () => {
  test('a signed-in outsider stars a public project and becomes starred', async () => {
    const owner = await registerUser(server);
    const fan = await registerUser(server);
    const project = await createProject(server, owner);
    await makePublic(server, project, owner);
    expect(await (await server.fetch(`/api/projects/${project.id}/star`, { token: fan.token })).json()).toBe(false);
    const put = await server.fetch(`/api/projects/${project.id}/star`, { method: 'PUT', token: fan.token, json: true });
    expect(put.status).toBe(200);
    expect(await put.json()).toBe(true);
    expect(await (await server.fetch(`/api/projects/${project.id}/star`, { token: fan.token })).json()).toBe(true);
    expect(await (await server.fetch(`/api/projects/${project.id}`, { token: fan.token })).json()).toMatchObject({ userRole: 'starred', userIsListed: true });
    // Starring twice is harmless; unstarring returns to an outsider.
    expect((await server.fetch(`/api/projects/${project.id}/star`, { method: 'PUT', token: fan.token, json: true })).status).toBe(200);
    expect(await (await server.fetch(`/api/projects/${project.id}/star`, { method: 'PUT', token: fan.token, json: false })).json()).toBe(false);
    expect(await (await server.fetch(`/api/projects/${project.id}`, { token: fan.token })).json()).toMatchObject({ userRole: null, userIsListed: false });
  });

  test('a member who stars keeps their role', async () => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    expect(await (await server.fetch(`/api/projects/${project.id}/star`, { method: 'PUT', token: owner.token, json: true })).json()).toBe(true);
    expect(await (await server.fetch(`/api/projects/${project.id}`, { token: owner.token })).json()).toMatchObject({ userRole: 'admin' });
  });

  test('visitors must sign in; private projects are not_found for outsiders', async () => {
    const owner = await registerUser(server);
    const outsider = await registerUser(server);
    const project = await createProject(server, owner);
    expect((await server.fetch(`/api/projects/${project.id}/star`, { method: 'PUT', token: outsider.token, json: true })).status).toBe(404);
    await makePublic(server, project, owner);
    expect((await server.fetch(`/api/projects/${project.id}/star`, { method: 'PUT', json: true })).status).toBe(401);
    expect((await server.fetch(`/api/projects/${project.id}/star`)).status).toBe(401);
  });

  test.each([{ starred: true }, 'yes', 1, null])('refuses the body %j', async (body) => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    const response = await server.fetch(`/api/projects/${project.id}/star`, { method: 'PUT', token: owner.token, json: body });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_param', message: 'Invalid `body`' });
  });

  test('over tRPC', async () => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    const client = server.trpc(owner.token);
    expect(await client.projects.star.put.mutate({ project: project.id, starred: true })).toBe(true);
    expect(await client.projects.star.get.query({ project: project.id })).toBe(true);
  });
});

describe('deleting an account that owns projects', () => {
  test('is refused with not_empty naming the projects; members and stars go with the account', async () => {
    const owner = await registerUser(server);
    const member = await registerUser(server);
    const project = await createProject(server, owner, 'Keep Me');
    await addMember(server, project, member, 'developer');
    await makePublic(server, project, owner);
    await addStar(server, project, member);
    const refused = await server.fetch('/api/users/me', { method: 'DELETE', token: owner.token });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      code: 'not_empty',
      message: 'Delete the projects you own first: Keep Me',
      details: { projects: [{ id: project.id, title: 'Keep Me' }] },
    });
    expect((await server.fetch('/api/users/me', { method: 'DELETE', token: member.token })).status).toBe(200);
    const list = await (await server.fetch(`/api/projects/${project.id}/users`, { token: owner.token })).json();
    expect(list.map((item: { user: { id: string } }) => item.user.id)).toEqual([owner.id]);
    const [stars] = await server.deps.db.select({ count: sql<number>`count(*)::int` }).from(projectStars).where(eq(projectStars.userId, member.id));
    expect(stars!.count).toBe(0);
    expect((await server.fetch(`/api/projects/${project.id}`, { method: 'DELETE', token: owner.token })).status).toBe(200);
    expect((await server.fetch('/api/users/me', { method: 'DELETE', token: owner.token })).status).toBe(200);
    expect(await server.deps.db.select().from(users).where(eq(users.id, owner.id))).toEqual([]);
  });
});

describe('projects over tRPC: the same services as REST', () => {
  test('create, get, patch, list, delete', async () => {
    const user = await registerUser(server);
    const client = server.trpc(user.token);
    const created = await client.projects.create.mutate({ title: 'Via tRPC' });
    expect(created).toMatchObject({ title: 'Via tRPC', userIsOwner: true });
    expect((await client.projects.get.query({ project: created.id })).id).toBe(created.id);
    expect((await client.projects.patch.mutate({ project: created.id, title: 'Renamed' })).title).toBe('Renamed');
    expect((await client.projects.mine.query()).map((p) => p.title)).toEqual(['Renamed']);
    const rest = await (await server.fetch(`/api/projects/${created.id}`, { token: user.token })).json();
    expect(rest.title).toBe('Renamed');
    expect(await client.projects.delete.mutate({ project: created.id })).toEqual({ ok: true });
    const [row] = await server.deps.db.select({ count: sql<number>`count(*)::int` }).from(projects).where(eq(projects.id, created.id));
    expect(row!.count).toBe(0);
  });

  test('errors carry the catalogued codes', async () => {
    const owner = await registerUser(server);
    const outsider = await registerUser(server);
    const project = await createProject(server, owner);
    expect(await failure(server.trpc(outsider.token).projects.get.query({ project: project.id }))).toMatchObject({ code: 'not_found', httpStatus: 404 });
    expect(await failure(server.trpc().projects.create.mutate({ title: 'x' }))).toMatchObject({ code: 'unauthorized', httpStatus: 401 });
    expect(await failure(server.trpc(owner.token).projects.create.mutate({ title: '' }))).toMatchObject({ code: 'bad_param', message: 'Invalid `title`' });
    expect(await failure(server.trpc(owner.token).projects.patch.mutate({ project: project.id }))).toMatchObject({ code: 'bad_param', httpStatus: 400 });
    expect(await failure(server.trpc(owner.token).projects.patch.mutate({ project: project.id, isPublic: true }))).toMatchObject({
      code: 'insufficient_privileges',
      httpStatus: 403,
    });
  });
});
