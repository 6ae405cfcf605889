import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createPackageRecord, uploadPackage } from '../support/packages.ts';
import { makePublic, makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailure } from '../support/trpc-failure.ts';

/**
 * Issue 29: the package page says when the start file lacks its executable bit. GET .../packages/{id}
 * carries entrypointExecutable from the package's index; lists leave it out.
 */
let server: TestServer;
let team: Team;
const url = (id: string) => `/api/projects/${team.project.id}/packages/${id}`;
const linux = ['os:linux', 'arch:x86', 'bits:64'];

beforeAll(async () => {
  server = await startTestServer();
  team = await makeTeam(server);
});
afterAll(() => server.stop());

async function getJson(id: string, token?: string): Promise<Record<string, unknown>> {
  const response = await server.fetch(url(id), { token });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

test('false for a start file without its bit, true with it, over REST and tRPC', async () => {
  const plain = await uploadPackage(server, team.developer, team.project.id, { hopper: 'elf', 'data.pck': 'd' }, { tags: linux, entrypoint: ['hopper'] });
  const marked = await uploadPackage(server, team.developer, team.project.id, { 'bin/hopper': 'elf' }, { tags: linux, entrypoint: ['bin', 'hopper'], executables: ['bin/hopper'] });
  expect((await getJson(plain.id, team.tester.token)).entrypointExecutable).toBe(false);
  expect((await getJson(marked.id, team.tester.token)).entrypointExecutable).toBe(true);
  const trpc = server.trpc(team.tester.token);
  expect((await trpc.packages.get.query({ project: team.project.id, package: plain.id })).entrypointExecutable).toBe(false);
  expect((await trpc.packages.get.query({ project: team.project.id, package: marked.id })).entrypointExecutable).toBe(true);
  // Lists read no index: the field is only in the package's own reply.
  const listed = await trpc.packages.list.query({ project: team.project.id });
  expect(listed.find((item) => item.id === plain.id)).not.toHaveProperty('entrypointExecutable');
});

test('null without a start file, for one that is no file of the package, and before the package is ready', async () => {
  const none = await uploadPackage(server, team.developer, team.project.id, { game: 'x' }, { tags: linux });
  expect((await getJson(none.id, team.owner.token)).entrypointExecutable).toBeNull();
  const folder = await uploadPackage(server, team.developer, team.project.id, { 'bin/game': 'x' }, { tags: linux, entrypoint: ['bin'] });
  expect((await getJson(folder.id, team.owner.token)).entrypointExecutable).toBeNull();
  const missing = await uploadPackage(server, team.developer, team.project.id, { game: 'x' }, { tags: linux, entrypoint: ['gone', 'game'] });
  expect((await getJson(missing.id, team.owner.token)).entrypointExecutable).toBeNull();
  const uploading = await createPackageRecord(server, team.developer, team.project.id, { size: 10, tags: linux, entrypoint: ['game'] });
  expect((await getJson(uploading.id, team.owner.token)).entrypointExecutable).toBeNull();
});

test('an index that cannot be read gives null, not a failed page', async () => {
  const pkg = await uploadPackage(server, team.developer, team.project.id, { game: 'x' }, { tags: linux, entrypoint: ['game'] });
  await server.deps.storage.delete(`packages/${pkg.id}/index`);
  expect((await getJson(pkg.id, team.owner.token)).entrypointExecutable).toBeNull();
});

test('every caller kind: members see it; outsiders and anonymous callers get not_found as before; public packages show it to all', async () => {
  const pkg = await uploadPackage(server, team.developer, team.project.id, { game: 'x' }, { tags: linux, entrypoint: ['game'] });
  for (const user of [team.owner, team.admin, team.developer, team.tester]) expect((await getJson(pkg.id, user.token)).entrypointExecutable).toBe(false);
  for (const token of [team.outsider.token, undefined]) {
    const response = await server.fetch(url(pkg.id), { token });
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('entrypointExecutable');
  }
  expect((await trpcFailure(server.trpc(team.outsider.token).packages.get.query({ project: team.project.id, package: pkg.id }))).code).toBe('not_found');
  // Another project's id with this package: not found.
  const other = await makeTeam(server);
  expect((await server.fetch(`/api/projects/${other.project.id}/packages/${pkg.id}`, { token: other.owner.token })).status).toBe(404);
  // Published to a public branch of a public project: anyone sees it.
  const id = team.project.id;
  const version = await (await server.fetch(`/api/projects/${id}/versions`, { method: 'POST', token: team.owner.token, json: { title: '1.0.0', packages: [pkg.id] } })).json();
  await makePublic(server, team.project, team.owner);
  const branch = await (await server.fetch(`/api/projects/${id}/branches`, { method: 'POST', token: team.owner.token, json: { title: 'main' } })).json();
  await server.fetch(`/api/projects/${id}/branches/${branch.id}`, { method: 'PATCH', token: team.owner.token, json: { isPublic: true } });
  await server.fetch(`/api/projects/${id}/branches/${branch.id}/versions/${version.id}`, { method: 'POST', token: team.owner.token });
  expect((await getJson(pkg.id)).entrypointExecutable).toBe(false);
  expect((await getJson(pkg.id, team.outsider.token)).entrypointExecutable).toBe(false);
});
