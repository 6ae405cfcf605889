import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { parseDeploySiteAddress } from '../../src/shared/schemas/deploy.ts';
import { deployCredentials, deploySites } from '../../src/server/db/schema/index.ts';
import { newId } from '../../src/server/db/ids.ts';
import { createLogger } from '../../src/server/logger.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { startFakeItchApi, type FakeItchApi } from '../support/fake-itch/api.ts';
import { createApiToken, createProject, makePublic, makeTeam, type Team, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { itchAccount, itchKey, replyRecorder } from './deploys-support.ts';

let server: TestServer;
let itch: FakeItchApi;
let api: ReturnType<typeof replyRecorder>;
const logLines: string[] = [];
const keysSent: string[] = [];

beforeAll(async () => {
  itch = startFakeItchApi({ keys: {} });
  server = await startTestServer({ ITCH_API_URL: itch.url }, { log: createLogger('debug', (line) => logLines.push(line)) });
  api = replyRecorder(server);
  await registerUser(server, 'admin');
}, 60_000);
afterAll(async () => {
  await server.stop();
  await itch.stop();
});

const sitesPath = (project: TestProject) => `/api/projects/${project.id}/deploy-sites`;

/** A credential of the user's, through the API. */
async function addCredential(user: TestUser, developer = `dev${Math.random().toString(36).slice(2, 8)}`, title?: string): Promise<{ id: string; title: string }> {
  const key = itchKey();
  keysSent.push(key);
  itch.setKey(key, itchAccount(developer, ['game']));
  const created = await api.call('/api/users/me/deploy-credentials', { method: 'POST', token: user.token, json: { provider: 'itch', key, title } });
  if (created.status !== 200) throw new Error(`credential: ${created.status} ${created.text}`);
  return created.body;
}

const addSite = (project: TestProject, token: string | undefined, json: unknown) => api.call(sitesPath(project), { method: 'POST', token, json });

describe('site address forms (spec §5)', () => {
  test('itch: developer.itch.io/game (https://, trailing slash) or developer/game; Steam: store address or a number', () => {
    for (const [text, site] of [
      ['developer.itch.io/game', 'developer/game'],
      ['https://developer.itch.io/game', 'developer/game'],
      ['http://Developer.itch.io/My-Game/', 'developer/my-game'],
      ['developer/game', 'developer/game'],
      ['  dev_1/game_2  ', 'dev_1/game_2'],
    ]) {
      expect({ text, site: parseDeploySiteAddress('itch', text!) }).toEqual({ text, site });
    }
    for (const text of ['developer', 'developer.itch.io', 'https://itch.io/game', 'a/b/c', 'https://developer.itch.io/game/extra', 'https://evil.com/developer.itch.io/game', 'dev/ga me', 'dev/gäme', '/game', 'ftp://developer.itch.io/game', '123', 'dev\u0000/game']) {
      expect({ text, site: parseDeploySiteAddress('itch', text) }).toEqual({ text, site: undefined });
    }
    for (const [text, site] of [
      ['https://store.steampowered.com/app/480/Spacewar/', '480'],
      ['store.steampowered.com/app/1234567', '1234567'],
      ['http://store.steampowered.com/app/12?l=en', '12'],
      ['480', '480'],
      ['00480', '480'],
    ]) {
      expect({ text, site: parseDeploySiteAddress('steam', text!) }).toEqual({ text, site });
    }
    for (const text of ['0', '-1', '1.5', '99999999999', 'abc', 'https://store.steampowered.com/sub/480', 'https://evil.com/app/480', 'developer/game', '']) {
      expect({ text, site: parseDeploySiteAddress('steam', text) }).toEqual({ text, site: undefined });
    }
  });
});

describe('GET/POST/DELETE /api/projects/{project}/deploy-sites', () => {
  let team: Team;
  let ownerCredential: { id: string; title: string };
  beforeAll(async () => {
    team = await makeTeam(server);
    ownerCredential = await addCredential(team.owner, 'teamdev', 'Studio key');
  }, 30_000);

  test('the owner adds a site from an itch address; members list it; REST and tRPC', async () => {
    const created = await addSite(team.project, team.owner.token, { credential: ownerCredential.id, site: 'https://TeamDev.itch.io/first/' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(String),
      provider: 'itch',
      site: 'teamdev/first',
      credentialId: ownerCredential.id,
      credentialTitle: 'Studio key',
      credentialOwnerTitle: expect.any(String),
      created: expect.any(String),
      // This server has no butler (no BUTLER_PATH, none on PATH): the site says so before any deploy.
      deployProblem: 'butler_missing',
      deployProblemMessage: expect.stringContaining('butler'),
    });
    const viaTrpc = await api.trpc(server.trpc(team.owner.token).deploys.sites.create.mutate({ project: team.project.id, credential: ownerCredential.id, site: 'teamdev/second' }));
    expect(viaTrpc).toMatchObject({ ok: true, value: { site: 'teamdev/second', provider: 'itch' } });
    for (const member of [team.owner, team.admin, team.developer, team.tester]) {
      const list = await api.call(sitesPath(team.project), { token: member.token });
      expect(list.status).toBe(200);
      expect(list.body.map((site: { site: string }) => site.site)).toEqual(['teamdev/first', 'teamdev/second']);
      const listed = await api.trpc(server.trpc(member.token).deploys.sites.list.query({ project: team.project.id }));
      expect(listed).toMatchObject({ ok: true, value: [{ site: 'teamdev/first' }, { site: 'teamdev/second' }] });
    }
    // The same site twice is a conflict.
    const again = await addSite(team.project, team.owner.token, { credential: ownerCredential.id, site: 'teamdev.itch.io/first' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('name_conflict');
    // The owner's credential lists where it is used.
    const credentials = await api.call('/api/users/me/deploy-credentials', { token: team.owner.token });
    expect(credentials.body[0].sites).toEqual([
      { id: created.body.id, projectId: team.project.id, projectTitle: team.project.title, site: 'teamdev/first' },
      { id: expect.any(String), projectId: team.project.id, projectTitle: team.project.title, site: 'teamdev/second' },
    ]);
  });

  test('permissions (spec §6): admins and the owner add and delete with their own credentials; developers and testers cannot', async () => {
    const project = await createProject(server, team.owner);
    const { addMember } = await import('../support/projects.ts');
    await addMember(server, project, team.admin, 'admin');
    await addMember(server, project, team.developer, 'developer');
    await addMember(server, project, team.tester, 'tester');
    const adminCredential = await addCredential(team.admin, 'admindev');
    const developerCredential = await addCredential(team.developer, 'devdev');
    const testerCredential = await addCredential(team.tester, 'testdev');
    const outsiderCredential = await addCredential(team.outsider, 'outdev');

    const byAdmin = await addSite(project, team.admin.token, { credential: adminCredential.id, site: 'admindev/game' });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.credentialTitle).toBe('Key 1');
    for (const [user, credential] of [
      [team.developer, developerCredential],
      [team.tester, testerCredential],
    ] as const) {
      const refused = await addSite(project, user.token, { credential: credential.id, site: 'someone/game' });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ code: 'insufficient_privileges', message: 'Your role in this project does not allow createDeploySite' });
      const trpcRefused = await api.trpc(server.trpc(user.token).deploys.sites.create.mutate({ project: project.id, credential: credential.id, site: 'someone/game' }));
      expect(trpcRefused).toMatchObject({ ok: false, code: 'insufficient_privileges', httpStatus: 403 });
      const deleteRefused = await api.call(`${sitesPath(project)}/${byAdmin.body.id}`, { method: 'DELETE', token: user.token });
      expect(deleteRefused.status).toBe(403);
      expect(await api.trpc(server.trpc(user.token).deploys.sites.delete.mutate({ project: project.id, site: byAdmin.body.id }))).toMatchObject({ ok: false, code: 'insufficient_privileges' });
    }
    // A private project does not exist for outsiders and visitors.
    for (const token of [team.outsider.token, undefined]) {
      expect((await addSite(project, token, { credential: outsiderCredential.id, site: 'outdev/game' })).body).toEqual({ code: 'not_found', message: 'project not found' });
      expect((await api.call(sitesPath(project), { token })).status).toBe(404);
      expect((await api.call(`${sitesPath(project)}/${byAdmin.body.id}`, { method: 'DELETE', token })).status).toBe(404);
    }
    // A public one: visitors must sign in (401), outsiders are refused (403), even to list.
    await makePublic(server, project, team.owner);
    expect((await api.call(sitesPath(project))).status).toBe(401);
    expect((await addSite(project, undefined, { credential: outsiderCredential.id, site: 'outdev/game' })).status).toBe(401);
    expect((await api.call(`${sitesPath(project)}/${byAdmin.body.id}`, { method: 'DELETE' })).status).toBe(401);
    expect(await api.trpc(server.trpc().deploys.sites.list.query({ project: project.id }))).toMatchObject({ ok: false, code: 'unauthorized', httpStatus: 401 });
    expect((await api.call(sitesPath(project), { token: team.outsider.token })).status).toBe(403);
    expect((await addSite(project, team.outsider.token, { credential: outsiderCredential.id, site: 'outdev/game' })).status).toBe(403);
    // An API token acts as its user (the owner here).
    const token = await createApiToken(server, team.owner);
    const ownerCredentialHere = await addCredential(team.owner, 'ownerapi');
    const byToken = await addSite(project, token, { credential: ownerCredentialHere.id, site: 'ownerapi/game' });
    expect(byToken.status).toBe(200);
    // The admin deletes a site, even one added by the owner.
    const deleted = await api.call(`${sitesPath(project)}/${byToken.body.id}`, { method: 'DELETE', token: team.admin.token });
    expect(deleted.body).toEqual({ ok: true });
    expect(await api.trpc(server.trpc(team.owner.token).deploys.sites.delete.mutate({ project: project.id, site: byAdmin.body.id }))).toEqual({ ok: true, value: { ok: true } });
    expect((await api.call(sitesPath(project), { token: team.owner.token })).body).toEqual([]);
  });

  test("a site is added only with the caller's own credential; another user's is not_found", async () => {
    const other = await addCredential(team.outsider, 'someoneelse');
    for (const credential of [other.id, ownerCredential.id]) {
      const refused = await addSite(team.project, team.admin.token, { credential, site: 'someoneelse/game' });
      expect(refused.status).toBe(404);
      expect(refused.body).toEqual({ code: 'not_found', message: 'deploy-credential not found' });
    }
    const trpcRefused = await api.trpc(server.trpc(team.admin.token).deploys.sites.create.mutate({ project: team.project.id, credential: ownerCredential.id, site: 'x/y' }));
    expect(trpcRefused).toMatchObject({ ok: false, code: 'not_found', httpStatus: 404 });
  });

  test("another project's site id is not_found", async () => {
    const otherProject = await createProject(server, team.owner);
    const site = await addSite(otherProject, team.owner.token, { credential: ownerCredential.id, site: 'teamdev/elsewhere' });
    expect(site.status).toBe(200);
    const refused = await api.call(`${sitesPath(team.project)}/${site.body.id}`, { method: 'DELETE', token: team.owner.token });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ code: 'not_found', message: 'deploy-site not found' });
    expect(await api.trpc(server.trpc(team.owner.token).deploys.sites.delete.mutate({ project: team.project.id, site: site.body.id }))).toMatchObject({ ok: false, code: 'not_found' });
    expect((await api.call(sitesPath(otherProject), { token: team.owner.token })).body).toHaveLength(1);
  });

  test('bad addresses, wrong types, missing fields and hostile bodies are bad_param naming the field', async () => {
    for (const site of ['developer', 'https://example.com/game', 'a/b/c', 'dev.itch.io', 'dev/ga me', '480']) {
      const refused = await addSite(team.project, team.owner.token, { credential: ownerCredential.id, site });
      expect({ site, status: refused.status, code: refused.body.code, message: refused.body.message }).toEqual({
        site,
        status: 400,
        code: 'bad_param',
        message: 'Invalid `site`: expected developer.itch.io/game or developer/game',
      });
    }
    const cases: [unknown, string][] = [
      [{ site: 'a/b' }, 'credential'],
      [{ credential: ownerCredential.id }, 'site'],
      [{ credential: 12, site: 'a/b' }, 'credential'],
      [{ credential: ownerCredential.id, site: 12 }, 'site'],
      [{ credential: ownerCredential.id, site: '' }, 'site'],
      [{ credential: ownerCredential.id, site: 'x'.repeat(301) }, 'site'],
      [{ credential: ownerCredential.id, site: { nested: ['a/b'] } }, 'site'],
      [{ credential: 'a\u0000b', site: 'a/b' }, 'credential'],
      [{ credential: '../x', site: 'a/b' }, 'credential'],
    ];
    for (const [json, field] of cases) {
      const refused = await addSite(team.project, team.owner.token, json);
      expect({ json, status: refused.status, body: refused.body }).toEqual({ json, status: 400, body: { code: 'bad_param', message: `Invalid \`${field}\`` } });
    }
    const nul = await addSite(team.project, team.owner.token, { credential: ownerCredential.id, site: 'dev\u0000/game' });
    expect(nul.status).toBe(400);
    for (const json of [[], 'text', null]) expect((await addSite(team.project, team.owner.token, json)).status).toBe(400);
    let deep: unknown = 'x';
    for (let i = 0; i < 100; i++) deep = { site: deep };
    expect((await addSite(team.project, team.owner.token, deep)).status).toBe(400);
    expect((await addSite(team.project, team.owner.token, { credential: ownerCredential.id, site: 'x'.repeat(2 * 1024 * 1024) })).status).toBe(413);
    expect(await api.trpc(server.trpc(team.owner.token).deploys.sites.create.mutate({ project: team.project.id, credential: ownerCredential.id, site: 'nope' }))).toMatchObject({
      ok: false,
      code: 'bad_param',
      httpStatus: 400,
    });
  });

  test('a Steam credential takes a store address or an app id (stored Steam credentials only: adding one is not_supported)', async () => {
    const user = await registerUser(server);
    const project = await createProject(server, user);
    const id = newId();
    await server.deps.db.insert(deployCredentials).values({ id, userId: user.id, title: 'Steam', provider: 'steam', sealedKey: server.deps.keys.sealSecret('steam-secret') });
    const fromAddress = await addSite(project, user.token, { credential: id, site: 'https://store.steampowered.com/app/480/Spacewar/' });
    expect(fromAddress.body).toMatchObject({ provider: 'steam', site: '480' });
    expect((await addSite(project, user.token, { credential: id, site: '1234' })).body).toMatchObject({ site: '1234' });
    const refused = await addSite(project, user.token, { credential: id, site: 'developer/game' });
    expect(refused.body).toEqual({ code: 'bad_param', message: 'Invalid `site`: expected a Steam store app address or an app id', details: { field: 'site' } });
    const available = await api.call(`/api/users/me/deploy-credentials/${id}/available-sites`, { token: user.token });
    expect(available.status).toBe(501);
    expect(available.body.code).toBe('not_supported');
  });

  test('deleting a credential removes its sites in every project and names them; other sites stay', async () => {
    const user = await registerUser(server);
    const first = await createProject(server, user, 'First');
    const second = await createProject(server, user, 'Second');
    const doomed = await addCredential(user, 'doomed');
    const kept = await addCredential(user, 'kept');
    const a = await addSite(first, user.token, { credential: doomed.id, site: 'doomed/a' });
    const b = await addSite(second, user.token, { credential: doomed.id, site: 'doomed/b' });
    const c = await addSite(first, user.token, { credential: kept.id, site: 'kept/c' });
    const deleted = await api.call(`/api/users/me/deploy-credentials/${doomed.id}`, { method: 'DELETE', token: user.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({
      ok: true,
      deletedSites: [
        { id: a.body.id, projectId: first.id, projectTitle: 'First', site: 'doomed/a' },
        { id: b.body.id, projectId: second.id, projectTitle: 'Second', site: 'doomed/b' },
      ],
    });
    expect((await api.call(sitesPath(first), { token: user.token })).body.map((site: { id: string }) => site.id)).toEqual([c.body.id]);
    expect((await api.call(sitesPath(second), { token: user.token })).body).toEqual([]);
    expect(await server.deps.db.select().from(deploySites).where(eq(deploySites.credentialId, doomed.id))).toEqual([]);
    // Deleting the account removes its credentials and their sites too.
    const other = await registerUser(server);
    const project = await createProject(server, user, 'Shared');
    const { addMember } = await import('../support/projects.ts');
    await addMember(server, project, other, 'admin');
    const otherCredential = await addCredential(other, 'leaving');
    expect((await addSite(project, other.token, { credential: otherCredential.id, site: 'leaving/game' })).status).toBe(200);
    const removed = await api.call('/api/users/me', { method: 'DELETE', token: other.token });
    expect(removed.status).toBe(200);
    expect((await api.call(sitesPath(project), { token: user.token })).body).toEqual([]);
  });

  test('no reply and no log line ever carried a key', () => {
    expect(keysSent.length).toBeGreaterThan(5);
    const replies = api.replies.join('\n');
    const log = logLines.join('\n');
    for (const key of keysSent) {
      expect(replies.includes(key)).toBe(false);
      expect(log.includes(key)).toBe(false);
    }
  });
});
