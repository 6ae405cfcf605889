import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { storedChunks } from '../../src/server/db/schema/index.ts';
import { createPackageRecord, keysUnder, uploadPackage } from '../support/packages.ts';
import { makePublic, makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailure } from '../support/trpc-failure.ts';

let server: TestServer;
let team: Team;
const base = () => `/api/projects/${team.project.id}/packages`;

beforeAll(async () => {
  server = await startTestServer();
  team = await makeTeam(server);
});
afterAll(() => server.stop());

describe('package records', () => {
  test('create validates input and needs publishVersion', async () => {
    const bad = [
      { size: 10, tags: ['os:plan9'] },
      { size: 10, tags: ['distro:ubuntu'] },
      { size: 10, tags: [], entrypoint: ['a', '..'] },
      { size: 10, tags: [], entrypoint: [''] },
      { size: 0, tags: [] },
    ];
    for (const json of bad) {
      const response = await server.fetch(base(), { method: 'POST', token: team.owner.token, json });
      expect(response.status).toBe(400);
      expect((await response.json()).code).toBe('bad_param');
    }
    const tester = await server.fetch(base(), { method: 'POST', token: team.tester.token, json: { size: 10, tags: [] } });
    expect((await tester.json()).code).toBe('insufficient_privileges');
    const outsider = await server.fetch(base(), { method: 'POST', token: team.outsider.token, json: { size: 10, tags: [] } });
    expect(outsider.status).toBe(404);
    const unknownBase = await server.fetch(base(), { method: 'POST', token: team.owner.token, json: { size: 10, tags: [], basePackage: 'nope' } });
    expect(unknownBase.status).toBe(404);
    const created = await createPackageRecord(server, team.developer, team.project.id, { size: 10, tags: [] });
    const pendingBase = await server.fetch(base(), { method: 'POST', token: team.owner.token, json: { size: 10, tags: [], basePackage: created.id } });
    expect((await pendingBase.json()).code).toBe('not_finalized');
  });

  test('default titles, list, get, patch, version packages, delete (REST and tRPC)', async () => {
    const pkg = await uploadPackage(server, team.developer, team.project.id, { 'run.sh': 'x' }, { tags: ['bits:64', 'os:linux', 'arch:x86'], entrypoint: ['run.sh'] });
    expect(pkg.tags).toEqual(['os:linux', 'arch:x86', 'bits:64']);
    expect(pkg.title).toBe('Linux x86 64-bit');
    const plain = await uploadPackage(server, team.developer, team.project.id, { 'a': 'y' });
    expect(plain.title).toBe('Package');
    const trpc = server.trpc(team.tester.token);
    const listed = await trpc.packages.list.query({ project: team.project.id });
    expect(listed.map((item) => item.id).slice(0, 2)).toEqual([plain.id, pkg.id]);
    expect((await trpc.packages.get.query({ project: team.project.id, package: pkg.id })).size).toBe(1);
    expect((await trpcFailure(trpc.packages.patch.mutate({ project: team.project.id, package: pkg.id, title: 'x' }))).code).toBe('insufficient_privileges');
    const patched = await server.fetch(`${base()}/${pkg.id}`, { method: 'PATCH', token: team.developer.token, json: { title: 'Linux build' } });
    expect((await patched.json()).title).toBe('Linux build');
    const retagged = await server.trpc(team.developer.token).packages.patch.mutate({ project: team.project.id, package: plain.id, tags: ['os:web'] });
    expect(retagged.title).toBe('Web');
    const version = await (await server.fetch(`/api/projects/${team.project.id}/versions`, { method: 'POST', token: team.developer.token, json: { title: '1.2.0', packages: [plain.id, pkg.id] } })).json();
    const inVersion = await (await server.fetch(`/api/projects/${team.project.id}/versions/${version.id}/packages`, { token: team.tester.token })).json();
    // The same names as in the project's list: a version does not rename its packages.
    expect(inVersion.map((item: { title: string }) => item.title)).toEqual(['Web', 'Linux build']);
    // Outsiders see nothing until a version is on a public branch.
    expect((await server.fetch(`${base()}/${pkg.id}`, { token: team.outsider.token })).status).toBe(404);
    await makePublic(server, team.project, team.owner);
    expect(await (await server.fetch(base(), { token: team.outsider.token })).json()).toEqual([]);
    const branch = await (await server.fetch(`/api/projects/${team.project.id}/branches`, { method: 'POST', token: team.owner.token, json: { title: 'main' } })).json();
    await server.fetch(`/api/projects/${team.project.id}/branches/${branch.id}`, { method: 'PATCH', token: team.owner.token, json: { isPublic: true } });
    await server.fetch(`/api/projects/${team.project.id}/branches/${branch.id}/versions/${version.id}`, { method: 'POST', token: team.owner.token });
    expect((await server.fetch(`${base()}/${pkg.id}`)).status).toBe(200);
    // Delete: admin only, refused while a version lists it.
    expect((await server.fetch(`${base()}/${pkg.id}`, { method: 'DELETE', token: team.developer.token })).status).toBe(403);
    const busy = await server.fetch(`${base()}/${pkg.id}`, { method: 'DELETE', token: team.admin.token });
    expect((await busy.json()).code).toBe('not_empty');
    const loose = await uploadPackage(server, team.developer, team.project.id, { 'only-here.txt': 'unique content 123' });
    expect((await server.trpc(team.admin.token).packages.delete.mutate({ project: team.project.id, package: loose.id })).ok).toBe(true);
    expect((await server.fetch(`${base()}/${loose.id}`, { token: team.admin.token })).status).toBe(404);
    const deadline = Date.now() + 10_000;
    while ((await server.deps.storage.stat(`packages/${loose.id}/index`)) && Date.now() < deadline) {
      server.deps.jobSignal.notify();
      await Bun.sleep(50);
    }
    expect(await server.deps.storage.stat(`packages/${loose.id}/index`)).toBeUndefined();
    // Its chunk and its pack are gone; the other two packages' stay.
    expect(await server.deps.db.select().from(storedChunks)).toHaveLength(2);
    expect(await keysUnder(server, 'packs/')).toHaveLength(2);
    // An upload not finalized yet: whoever may upload can delete it (cancel); testers cannot.
    const unfinished = (await (await server.fetch(base(), { method: 'POST', token: team.developer.token, json: { size: 10, tags: [], entrypoint: null, basePackage: null } })).json()) as { id: string };
    expect((await server.fetch(`${base()}/${unfinished.id}`, { method: 'DELETE', token: team.tester.token })).status).toBe(403);
    expect((await server.fetch(`${base()}/${unfinished.id}`, { method: 'DELETE', token: team.developer.token })).status).toBeLessThan(300);
    expect((await server.fetch(`${base()}/${unfinished.id}`, { token: team.developer.token })).status).toBe(404);
  });

  test('a version with an unknown package is not_found', async () => {
    const response = await server.fetch(`/api/projects/${team.project.id}/versions`, { method: 'POST', token: team.owner.token, json: { title: 'x', packages: ['nope'] } });
    expect(response.status).toBe(404);
  });
});
