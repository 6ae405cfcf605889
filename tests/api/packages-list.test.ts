import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { ProjectPackage } from '../../src/shared/schemas/packages.ts';
import { createPackageRecord, uploadPackage } from '../support/packages.ts';
import { createProject, makePublic, makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailure } from '../support/trpc-failure.ts';

/**
 * GET .../packages as the project's packages screen reads it (issue 29): each package with the versions
 * it is in (those the caller may see), size, start file, created and updated; REST and tRPC alike,
 * for every kind of caller. Deleting one a version lists stays refused (not_empty).
 */
let server: TestServer;
let team: Team;
const list = (token?: string) => server.fetch(`/api/projects/${team.project.id}/packages`, { token });
const listJson = async (token?: string) => (await (await list(token)).json()) as ProjectPackage[];
const createVersion = async (title: string, packages: string[]) => {
  const response = await server.fetch(`/api/projects/${team.project.id}/versions`, { method: 'POST', token: team.developer.token, json: { title, packages } });
  expect(response.status).toBe(200);
  return (await response.json()) as { id: string; title: string };
};

let linux: ProjectPackage;
let web: ProjectPackage;
let loose: ProjectPackage;
let publicVersion: { id: string; title: string };
let privateVersion: { id: string; title: string };

beforeAll(async () => {
  server = await startTestServer();
  team = await makeTeam(server);
  linux = (await uploadPackage(server, team.developer, team.project.id, { 'bin/run.sh': 'x' }, { tags: ['os:linux', 'arch:x86', 'bits:64'], entrypoint: ['bin', 'run.sh'] })) as ProjectPackage;
  web = (await uploadPackage(server, team.developer, team.project.id, { 'index.html': '<p>hi</p>' }, { tags: ['os:web'], entrypoint: ['index.html'] })) as ProjectPackage;
  loose = (await uploadPackage(server, team.developer, team.project.id, { 'left.txt': 'nobody lists me' })) as ProjectPackage;
  publicVersion = await createVersion('1.0', [linux.id, web.id]);
  privateVersion = await createVersion('1.1-beta', [linux.id]);
  await makePublic(server, team.project, team.owner);
  const branch = await (await server.fetch(`/api/projects/${team.project.id}/branches`, { method: 'POST', token: team.owner.token, json: { title: 'main' } })).json();
  expect((await server.fetch(`/api/projects/${team.project.id}/branches/${branch.id}`, { method: 'PATCH', token: team.owner.token, json: { isPublic: true } })).status).toBe(200);
  expect((await server.fetch(`/api/projects/${team.project.id}/branches/${branch.id}/versions/${publicVersion.id}`, { method: 'POST', token: team.owner.token })).status).toBe(200);
}, 60_000);
afterAll(() => server?.stop());

describe('the project package list', () => {
  test('a member sees every package, newest first, with its versions (newest first), size, start file and dates', async () => {
    const items = await listJson(team.tester.token);
    expect(items.map((item) => item.id)).toEqual([loose.id, web.id, linux.id]);
    const byId = new Map(items.map((item) => [item.id, item]));
    expect(byId.get(linux.id)!.versions).toEqual([privateVersion, publicVersion].map(({ id, title }) => ({ id, title })));
    expect(byId.get(web.id)!.versions).toEqual([{ id: publicVersion.id, title: '1.0' }]);
    expect(byId.get(loose.id)!.versions).toEqual([]);
    const item = byId.get(linux.id)!;
    expect(item).toMatchObject({ title: 'Linux x86 64-bit', tags: ['os:linux', 'arch:x86', 'bits:64'], entrypoint: ['bin', 'run.sh'], size: 1, status: 'ready' });
    expect(Date.parse(item.created)).toBeGreaterThan(0);
    expect(Date.parse(item.updated)).toBeGreaterThanOrEqual(Date.parse(item.created));
  });

  test('tRPC answers the same list as REST', async () => {
    const viaTrpc = await server.trpc(team.admin.token).packages.list.query({ project: team.project.id });
    expect(viaTrpc).toEqual(await listJson(team.admin.token));
    const anonymous = await server.trpc().packages.list.query({ project: team.project.id });
    expect(anonymous).toEqual(await listJson());
  });

  test('visitors and non-members see only packages of public versions, and only those versions', async () => {
    for (const token of [undefined, team.outsider.token]) {
      const items = await listJson(token);
      expect(items.map((item) => item.id)).toEqual([web.id, linux.id]);
      for (const item of items) expect(item.versions).toEqual([{ id: publicVersion.id, title: '1.0' }]);
    }
  });

  test('a private project is not_found for visitors and non-members, on both doors', async () => {
    const owner = team.owner;
    const hidden = await createProject(server, owner);
    const secret = await uploadPackage(server, owner, hidden.id, { 'secret.txt': 'hidden' });
    for (const token of [undefined, team.outsider.token]) {
      const response = await server.fetch(`/api/projects/${hidden.id}/packages`, { token });
      expect(response.status).toBe(404);
      expect((await response.json()).code).toBe('not_found');
      expect((await trpcFailure(server.trpc(token).packages.list.query({ project: hidden.id }))).code).toBe('not_found');
    }
    // Each project's list holds only its own packages.
    const hiddenList = (await (await server.fetch(`/api/projects/${hidden.id}/packages`, { token: owner.token })).json()) as ProjectPackage[];
    expect(hiddenList.map((item) => item.id)).toEqual([secret.id]);
    expect((await listJson(owner.token)).some((item) => item.id === secret.id)).toBe(false);
  });

  test('an upload not finished yet is listed with its status, no size and no versions', async () => {
    const created = await createPackageRecord(server, team.developer, team.project.id, { size: 10, tags: ['os:windows'], entrypoint: ['game.exe'] });
    const item = (await listJson(team.developer.token)).find((entry) => entry.id === created.id)!;
    expect(item).toMatchObject({ status: 'uploading', size: null, versions: [], entrypoint: ['game.exe'] });
    expect((await server.fetch(`/api/projects/${team.project.id}/packages/${created.id}`, { method: 'DELETE', token: team.developer.token })).status).toBe(200);
  });

  test('bad project ids are refused or unknown, never a list of another project', async () => {
    for (const id of ['nope', 'a%00b', 'x'.repeat(5000), '%E2%80%AE']) {
      const response = await server.fetch(`/api/projects/${id}/packages`, { token: team.owner.token });
      expect([400, 404, 414]).toContain(response.status);
    }
    expect((await trpcFailure(server.trpc(team.owner.token).packages.list.query({ project: 42 as unknown as string }))).code).toBe('bad_param');
    expect((await trpcFailure(server.trpc(team.owner.token).packages.list.query({} as { project: string }))).code).toBe('bad_param');
    for (const project of ['a\u0000b', 'x'.repeat(5000), team.project.id + '\u202e']) {
      expect(['bad_param', 'not_found']).toContain((await trpcFailure(server.trpc(team.owner.token).packages.list.query({ project }))).code);
    }
    // An id so long the request line is refused before tRPC reads it (431 from Bun), never a list.
    const huge = await server.fetch(`/trpc/packages.list?input=${encodeURIComponent(JSON.stringify({ project: 'x'.repeat(100_000) }))}`, { token: team.owner.token });
    expect([414, 431]).toContain(huge.status);
    // A body on a GET is not read: the list is the same.
    const withBody = await server.fetch(`/api/projects/${team.project.id}/packages`, { token: team.owner.token, method: 'GET' });
    expect(withBody.status).toBe(200);
  });
});

describe('updated and delete', () => {
  test('renaming touches a package; deleting a version touches the packages it listed', async () => {
    const pkg = await uploadPackage(server, team.developer, team.project.id, { 'a.txt': 'touch me' });
    const version = await createVersion('touch-test', [pkg.id]);
    const before = (await listJson(team.developer.token)).find((item) => item.id === pkg.id)!;
    expect(before.updated).toBe(pkg.updated);
    const renamed = await (await server.fetch(`/api/projects/${team.project.id}/packages/${pkg.id}`, { method: 'PATCH', token: team.developer.token, json: { title: 'Renamed' } })).json();
    expect(Date.parse(renamed.updated)).toBeGreaterThan(Date.parse(before.updated));
    expect((await server.fetch(`/api/projects/${team.project.id}/versions/${version.id}`, { method: 'DELETE', token: team.admin.token })).status).toBe(200);
    const after = (await listJson(team.developer.token)).find((item) => item.id === pkg.id)!;
    expect(after.versions).toEqual([]);
    expect(Date.parse(after.updated)).toBeGreaterThan(Date.parse(renamed.updated));
    expect(after.created).toBe(pkg.created);
  });

  test('a package a version lists cannot be deleted (not_empty naming the versions); in none, an admin deletes it', async () => {
    const path = `/api/projects/${team.project.id}/packages/${web.id}`;
    const refused = await server.fetch(path, { method: 'DELETE', token: team.admin.token });
    expect(refused.status).toBe(409);
    const body = await refused.json();
    expect(body.code).toBe('not_empty');
    expect(body.details.versions).toEqual([{ id: publicVersion.id, title: '1.0' }]);
    expect((await trpcFailure(server.trpc(team.admin.token).packages.delete.mutate({ project: team.project.id, package: web.id }))).code).toBe('not_empty');
    // A tester or developer may not delete a ready package; a visitor is told to sign in.
    expect((await server.fetch(`/api/projects/${team.project.id}/packages/${loose.id}`, { method: 'DELETE', token: team.tester.token })).status).toBe(403);
    expect((await server.fetch(`/api/projects/${team.project.id}/packages/${loose.id}`, { method: 'DELETE', token: team.developer.token })).status).toBe(403);
    expect((await server.fetch(`/api/projects/${team.project.id}/packages/${loose.id}`, { method: 'DELETE' })).status).toBe(404);
    // Another project's path does not reach it.
    const other = await createProject(server, team.admin);
    expect((await server.fetch(`/api/projects/${other.id}/packages/${loose.id}`, { method: 'DELETE', token: team.admin.token })).status).toBe(404);
    expect((await server.fetch(`/api/projects/${team.project.id}/packages/${loose.id}`, { method: 'DELETE', token: team.admin.token })).status).toBe(200);
    expect((await listJson(team.admin.token)).some((item) => item.id === loose.id)).toBe(false);
  });
});
