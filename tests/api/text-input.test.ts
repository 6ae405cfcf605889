import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { uploadPackage } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailureStatus } from '../support/trpc-failure.ts';

/**
 * Text from outside goes through the shared text rules (src/shared/schemas/text.ts): control
 * characters (NUL first: PostgreSQL cannot store it) are a 400 naming the field, never a 500;
 * invisible formatting characters that spoof titles are removed.
 */
let server: TestServer;
let owner: TestUser;
let project: TestProject;
let branch: string;
let version: string;
let packageId: string;
beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server);
  project = await createProject(server, owner);
  branch = (await (await call('POST', `/api/projects/${project.id}/branches`, { title: 'main' })).json()).id;
  packageId = (await uploadPackage(server, owner, project.id, { 'index.html': '<p>hi</p>' }, { tags: ['os:web'] })).id;
  version = (await (await call('POST', `/api/projects/${project.id}/versions`, { title: '1.0.0', packages: [packageId] })).json()).id;
});
afterAll(() => server.stop());

function call(method: string, path: string, json?: unknown, token = owner.token): Promise<Response> {
  return server.fetch(path, { method, token, json });
}

const NUL = 'a\u0000b';

describe('NUL and other control characters are a 400 naming the field', () => {
  const cases: [string, () => [string, string, unknown], string][] = [
    ['profile title', () => ['PATCH', '/api/users/me', { title: NUL }], 'title'],
    ['registration name', () => ['POST', '/api/auth/password', { name: NUL, password: 'a long enough password', intent: 'register' }], 'name'],
    ['registration title', () => ['POST', '/api/auth/password', { name: 'nul-title', password: 'a long enough password', intent: 'register', title: NUL }], 'title'],
    ['API token title', () => ['POST', '/api/users/me/sessions', { title: NUL }], 'title'],
    ['project title', () => ['POST', '/api/projects', { title: NUL }], 'title'],
    ['project rename', () => ['PATCH', `/api/projects/${project.id}`, { title: 'x\u0007y' }], 'title'],
    ['description markdown', () => ['PUT', `/api/projects/${project.id}/description`, { markdown: `# Hi\n${NUL}` }], 'markdown'],
    ['description image url', () => ['PUT', `/api/projects/${project.id}/description`, { markdown: '', images: [{ id: 'a', width: 1, height: 1, url: NUL }] }], 'images'],
    ['branch title', () => ['POST', `/api/projects/${project.id}/branches`, { title: NUL }], 'title'],
    ['branch rename', () => ['PATCH', `/api/projects/${project.id}/branches/${branch}`, { title: 'tab\there' }], 'title'],
    ['version title', () => ['POST', `/api/projects/${project.id}/versions`, { title: NUL }], 'title'],
    ['version description', () => ['POST', `/api/projects/${project.id}/versions`, { title: '2.0', description: NUL }], 'description'],
    ['version packages', () => ['POST', `/api/projects/${project.id}/versions`, { title: '2.0', packages: [NUL] }], 'packages'],
    ['version edit', () => ['PATCH', `/api/projects/${project.id}/versions/${version}`, { description: 'escape \u001b[31m' }], 'description'],
    ['package title', () => ['POST', `/api/projects/${project.id}/packages`, { size: 10, title: NUL }], 'title'],
    ['package base', () => ['POST', `/api/projects/${project.id}/packages`, { size: 10, basePackage: NUL }], 'basePackage'],
    ['package tags', () => ['POST', `/api/projects/${project.id}/packages`, { size: 10, tags: [NUL] }], 'tags'],
    ['package rename', () => ['PATCH', `/api/projects/${project.id}/packages/${packageId}`, { title: NUL }], 'title'],
    ['team member', () => ['PUT', `/api/projects/${project.id}/users`, { user: NUL, role: 'tester' }], 'user'],
    ['job tokens', () => ['POST', '/api/jobs', { tokens: [NUL] }], 'tokens'],
    ['finalize token', () => ['PUT', `/api/projects/${project.id}/packages/${packageId}/finalize`, { token: NUL, parts: [{ part: 0, hash: 'a'.repeat(40), size: 1 }] }], 'token'],
    ['unpaired surrogate in a title', () => ['POST', '/api/projects', { title: 'a\ud800b' }], 'title'],
    ['C1 control in a title', () => ['POST', '/api/projects', { title: 'a\u0085b' }], 'title'],
  ];

  test.each(cases)('%s', async (_, request, field) => {
    const [method, path, body] = request();
    const response = await call(method, path, body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'bad_param', message: `Invalid \`${field}\`` });
  });

  test.each([
    ['project', () => `/api/projects/a%00b`],
    ['branch', () => `/api/projects/${project.id}/branches/a%00b`],
    ['version', () => `/api/projects/${project.id}/versions/a%00b`],
    ['package', () => `/api/projects/${project.id}/packages/a%00b`],
    ['session', () => `/api/users/me/sessions/a%00b`],
  ])('a NUL in the %s id of a path', async (name, path) => {
    const response = await call(name === 'session' || name === 'branch' ? 'DELETE' : 'GET', path());
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_param', message: `Invalid \`${name}\`` });
  });

  test('a NUL in a query token', async () => {
    const response = await call('GET', '/api/invites?token=a%00b');
    expect(response.status).toBe(400);
    expect((await response.json()).message).toBe('Invalid `token`');
  });

  test('tRPC refuses the same input with the same code', async () => {
    expect(await trpcFailureStatus(server.trpc(owner.token).users.rename.mutate({ title: NUL }))).toEqual({ code: 'bad_param', httpStatus: 400 });
    expect(await trpcFailureStatus(server.trpc(owner.token).projects.create.mutate({ title: NUL }))).toEqual({ code: 'bad_param', httpStatus: 400 });
  });

  test('nothing was changed by the refused calls', async () => {
    const me = await (await call('GET', '/api/users/me')).json();
    expect(me.title).toBe(owner.name);
    const projects = await (await call('GET', '/api/users/me/projects')).json();
    expect(projects.map((item: { title: string }) => item.title)).toEqual([project.title]);
  });
});

describe('invisible formatting is removed from names and titles', () => {
  test.each([
    ['a right-to-left override', 'Game\u202Egnp.exe', 'Gamegnp.exe'],
    ['isolates', '\u2066Studio\u2069 Game', 'Studio Game'],
    ['zero-width spaces and a byte order mark', '\uFEFFZero\u200Bwidth', 'Zerowidth'],
  ])('%s', async (_, title, stored) => {
    const response = await call('POST', '/api/projects', { title });
    expect(response.status).toBe(200);
    expect((await response.json()).title).toBe(stored);
  });

  test('joiners and direction marks that scripts and emoji need are kept', async () => {
    const title = 'می\u200Cخواهم \u{1F468}\u200D\u{1F469}\u200D\u{1F467} \u200Fتست';
    const response = await call('POST', '/api/projects', { title });
    expect((await response.json()).title).toBe(title);
  });

  test('a title of invisible characters only is empty, so refused', async () => {
    const response = await call('POST', '/api/projects', { title: '\u202E\u200B\u2066' });
    expect(response.status).toBe(400);
    expect((await response.json()).message).toBe('Invalid `title`');
  });

  test('markdown keeps its line breaks and tabs', async () => {
    const markdown = '# Title\r\n\n\tcode\n';
    const response = await call('PUT', `/api/projects/${project.id}/description`, { markdown });
    expect(response.status).toBe(200);
    expect((await (await call('GET', `/api/projects/${project.id}/description`)).json()).markdown).toBe(markdown);
  });
});
