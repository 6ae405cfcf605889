import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { TRPCClientError } from '@trpc/client';
import { eq } from 'drizzle-orm';
import { newId } from '../../src/server/db/ids.ts';
import { branchVersions, credentials } from '../../src/server/db/schema/index.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { uploadPackage } from '../support/packages.ts';
import { addMember, createProject, makePublic, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ PUBLIC_URL: 'https://games.example.com' });
  await registerUser(server, 'admin');
});
afterAll(() => server.stop());

async function post<T = { id: string }>(path: string, user: TestUser, json?: unknown): Promise<T> {
  const response = await server.fetch(path, { method: 'POST', token: user.token, json });
  if (response.status !== 200) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return response.json() as Promise<T>;
}

async function setBranchPublic(project: TestProject, owner: TestUser, branchId: string): Promise<void> {
  await server.fetch(`/api/projects/${project.id}/branches/${branchId}`, { method: 'PATCH', token: owner.token, json: { isPublic: true } });
}

describe('GET /api/store/projects/{project}', () => {
  test('owner with public credentials, description, current version of each public branch', async () => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner, 'Star Miner');
    await server.fetch(`/api/projects/${project.id}/description`, { method: 'PUT', token: owner.token, json: { markdown: '# Hi', lang: 'en', images: [] } });
    await server.deps.db.insert(credentials).values([
      { id: newId(), userId: owner.id, provider: 'github', name: 'miner', title: 'Miner', profileUrl: 'https://github.com/miner', isPublic: true },
      { id: newId(), userId: owner.id, provider: 'itch', name: 'secret', title: 'Secret', isPublic: false },
    ]);
    await server.deps.db.update(credentials).set({ isPublic: true }).where(eq(credentials.provider, 'password'));
    const base = `/api/projects/${project.id}`;
    const [stable, beta, internal, empty] = [
      await post(`${base}/branches`, owner, { title: 'stable' }),
      await post(`${base}/branches`, owner, { title: 'Beta' }),
      await post(`${base}/branches`, owner, { title: 'internal' }),
      await post(`${base}/branches`, owner, { title: 'empty' }),
    ];
    for (const branch of [stable, beta, empty]) await setBranchPublic(project, owner, branch.id);
    const linux = await uploadPackage(server, owner, project.id, { 'game.sh': '#!/bin/sh\necho hi\n' }, { tags: ['os:linux'] });
    const web = await uploadPackage(server, owner, project.id, { 'index.html': '<canvas></canvas>' }, { tags: ['os:web'] });
    const v1 = await post(`${base}/versions`, owner, { title: '1.0.0', description: 'First' });
    // Packages keep the version's order.
    const v2 = await post(`${base}/versions`, owner, { title: '1.1.0', description: 'Second', packages: [web.id, linux.id] });
    await post(`${base}/branches/${stable.id}/versions/${v1.id}`, owner);
    await post(`${base}/branches/${stable.id}/versions/${v2.id}`, owner);
    await post(`${base}/branches/${beta.id}/versions/${v1.id}`, owner);
    await post(`${base}/branches/${internal.id}/versions/${v2.id}`, owner);

    expect((await server.fetch(`/api/store/projects/${project.id}`, { token: owner.token })).status).toBe(404);
    await makePublic(server, project, owner);
    const response = await server.fetch(`/api/store/projects/${project.id}`);
    expect(response.status).toBe(200);
    const store = await response.json();
    expect(store).toEqual({
      id: project.id,
      title: 'Star Miner',
      owner: {
        title: owner.name,
        credentials: [{ provider: 'github', name: 'miner', title: 'Miner', profileUrl: 'https://github.com/miner', profilePictureUrl: null }],
      },
      storeTags: [],
      description: { markdown: '# Hi', lang: 'en', images: [] },
      media: { cover: null, screenshots: [] },
      branches: [
        { id: beta.id, title: 'Beta', versionTitle: '1.0.0', versionDescription: 'First', branchVersionPublished: expect.any(String), packages: [] },
        {
          id: stable.id,
          title: 'stable',
          versionTitle: '1.1.0',
          versionDescription: 'Second',
          branchVersionPublished: expect.any(String),
          // Each package's summary (the store screen needs no request per package); ids in the version's order.
          packages: [
            { id: web.id, title: web.title, tags: ['os:web'], size: web.size },
            { id: linux.id, title: linux.title, tags: ['os:linux'], size: linux.size },
          ],
        },
      ],
    });
    const member = await registerUser(server);
    await addMember(server, project, member, 'tester');
    expect(await server.trpc(member.token).store.project.query({ project: project.id })).toEqual(store);
  });

  test('private and unknown projects are not_found alike', async () => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    const privateReply = await server.fetch(`/api/store/projects/${project.id}`);
    const unknownReply = await server.fetch('/api/store/projects/unknown');
    expect(privateReply.status).toBe(404);
    expect(await privateReply.json()).toEqual(await unknownReply.json());
    try {
      await server.trpc().store.project.query({ project: project.id });
      throw new Error('the call succeeded');
    } catch (error) {
      expect(error instanceof TRPCClientError && error.data?.code).toBe('not_found');
    }
  });
});

describe('GET /api/store/sitemap.xml', () => {
  test('lists public projects under PUBLIC_URL with the last public publish', async () => {
    const owner = await registerUser(server);
    const shown = await createProject(server, owner, 'Shown');
    const hidden = await createProject(server, owner, 'Hidden');
    await makePublic(server, shown, owner);
    const branch = await post(`/api/projects/${shown.id}/branches`, owner, { title: 'main' });
    await setBranchPublic(shown, owner, branch.id);
    const version = await post(`/api/projects/${shown.id}/versions`, owner, { title: '1' });
    await post(`/api/projects/${shown.id}/branches/${branch.id}/versions/${version.id}`, owner);
    const [publish] = await server.deps.db.select().from(branchVersions).where(eq(branchVersions.branchId, branch.id));
    const response = await server.fetch('/api/store/sitemap.xml');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const xml = await response.text();
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">')).toBe(true);
    expect(xml).toContain(`<url><loc>https://games.example.com/store/${shown.id}</loc><lastmod>${publish!.publishedAt.toISOString().slice(0, 19)}Z</lastmod><xhtml:link `);
    expect(xml).not.toContain(hidden.id);
    expect(xml.trimEnd().endsWith('</urlset>')).toBe(true);
  });
});
