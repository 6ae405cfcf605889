import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { bootDeps, closeDeps } from '../../src/server/boot.ts';
import { loadConfig } from '../../src/server/config.ts';
import { credentials, projects } from '../../src/server/db/schema/index.ts';
import { syncStoreCache } from '../../src/server/domains/store/store-cache.ts';
import { startServer } from '../../src/server/serve.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createProject, makePublic, type TestProject } from '../support/projects.ts';
import { uploadPackage } from '../support/packages.ts';
import { secondProcessEnv, startTestServer, type TestServer } from '../support/server.ts';

/**
 * Store pages are cached per process and dropped on the database's 'store_changed' notifications
 * (store-cache.ts, migration triggers). Every change a page shows must be visible on the very next read,
 * through REST and tRPC alike; with PostgreSQL, also in a second process on the same database.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

type StorePage = {
  title: string;
  owner: { title: string; credentials: unknown[] };
  description: { markdown: string };
  branches: { title: string; versionTitle: string; packages: { id: string; title: string; tags: string[]; size: number | null }[] }[];
};

async function storePage(target: TestServer | string, projectId: string): Promise<{ status: number; body: StorePage }> {
  const response = typeof target === 'string' ? await fetch(`${target}/api/store/projects/${projectId}`) : await target.fetch(`/api/store/projects/${projectId}`);
  return { status: response.status, body: (await response.json()) as StorePage };
}

async function publicProjectWithBranch(owner: TestUser): Promise<{ project: TestProject; branch: string; trpc: ReturnType<TestServer['trpc']> }> {
  const project = await createProject(server, owner);
  await makePublic(server, project, owner);
  const trpc = server.trpc(owner.token);
  const branch = await trpc.projects.branches.create.mutate({ project: project.id, title: 'stable' });
  await trpc.projects.branches.patch.mutate({ project: project.id, branch: branch.id, isPublic: true });
  const version = await trpc.projects.versions.create.mutate({ project: project.id, title: '1.0.0', description: '', packages: [] });
  await trpc.projects.versions.publish.mutate({ project: project.id, branch: branch.id, version: version.id });
  return { project, branch: branch.id, trpc };
}

test('pages are served from the cache: a write that fires no trigger stays unseen until the next change', async () => {
  const owner = await registerUser(server);
  const { project, trpc } = await publicProjectWithBranch(owner);
  expect((await storePage(server, project.id)).body.title).toBe(project.title);
  // Replica mode skips triggers: the database changes, the cache is not told.
  await server.deps.db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.update(projects).set({ title: 'Silently renamed' }).where(eq(projects.id, project.id));
  });
  expect((await storePage(server, project.id)).body.title).toBe(project.title);
  await trpc.projects.description.put.mutate({ project: project.id, description: { markdown: 'Told.', lang: null, images: [] } });
  const page = (await storePage(server, project.id)).body;
  expect([page.title, page.description.markdown]).toEqual(['Silently renamed', 'Told.']);
});

test('not found is cached too: a silent write stays unseen, the next told change shows the page; made-up ids answer alike', async () => {
  const owner = await registerUser(server);
  const project = await createProject(server, owner);
  const first = await storePage(server, project.id);
  expect(first.status).toBe(404);
  // Made public without a trigger: the remembered not_found still answers (no query was made).
  await server.deps.db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.update(projects).set({ isPublic: true }).where(eq(projects.id, project.id));
  });
  const again = await storePage(server, project.id);
  expect(again).toEqual(first);
  // Any change the triggers report (here the description) drops it: the page shows.
  await server.trpc(owner.token).projects.description.put.mutate({ project: project.id, description: { markdown: 'Now public.', lang: null, images: [] } });
  const shown = await storePage(server, project.id);
  expect([shown.status, shown.body.title]).toEqual([200, project.title]);
  // Private again, through the API: not found on the very next read.
  expect((await server.fetch(`/api/projects/${project.id}`, { method: 'PATCH', token: owner.token, json: { isPublic: false } })).status).toBe(200);
  expect((await storePage(server, project.id)).status).toBe(404);

  // Unknown ids, shaped like ours or not: the same answer each time; an over-long one or one with a NUL
  // is refused (bad_param) before any lookup.
  const unknown = await storePage(server, 'zzzzzzzzzzzzzzzzzzzz');
  for (const id of ['zzzzzzzzzzzzzzzzzzzz', 'ABC', 'x-y_z', project.id]) {
    const response = await storePage(server, id);
    expect([id, response.status]).toEqual([id, 404]);
    expect(response.body).toEqual(unknown.body);
  }
  for (const id of ['a'.repeat(5000), 'a%00b']) expect((await storePage(server, id)).status).toBe(400);
});

test('a remembered not_found answers every caller kind alike, and a signed-in caller sees its own change at once', async () => {
  const owner = await registerUser(server);
  const stranger = await registerUser(server);
  const project = await createProject(server, owner);
  const anonymous = await storePage(server, project.id);
  expect(anonymous.status).toBe(404);
  // The store is the public face: a private project is not found for its owner and strangers too,
  // by token, by session cookie and through tRPC, whether the answer is remembered or not.
  for (const caller of [owner, stranger]) {
    const byToken = await server.fetch(`/api/store/projects/${project.id}`, { token: caller.token });
    const byCookie = await server.fetch(`/api/store/projects/${project.id}`, { headers: { cookie: caller.cookie } });
    expect([byToken.status, byCookie.status]).toEqual([404, 404]);
    expect(await byToken.json()).toEqual(anonymous.body);
    await expect(server.trpc(caller.token).store.project.query({ project: project.id })).rejects.toMatchObject({ data: { code: 'not_found' } });
  }
  // Made public by its owner: the owner's very next read shows it, as does everyone's.
  await makePublic(server, project, owner);
  expect((await server.fetch(`/api/store/projects/${project.id}`, { token: owner.token })).status).toBe(200);
  expect((await storePage(server, project.id)).status).toBe(200);
  expect((await server.trpc(stranger.token).store.project.query({ project: project.id })).title).toBe(project.title);
});

describe('a change shows on the next read of the store page', () => {
  test('publish, rename a version, rename and hide a branch, description, project title, private', async () => {
    const owner = await registerUser(server);
    const { project, branch, trpc } = await publicProjectWithBranch(owner);
    // Read twice: the second read comes from the cache.
    expect((await storePage(server, project.id)).body.branches.map((item) => item.versionTitle)).toEqual(['1.0.0']);
    expect((await storePage(server, project.id)).body.branches.map((item) => item.versionTitle)).toEqual(['1.0.0']);

    const next = await trpc.projects.versions.create.mutate({ project: project.id, title: '1.0.1', description: '', packages: [] });
    await trpc.projects.versions.publish.mutate({ project: project.id, branch, version: next.id });
    expect((await storePage(server, project.id)).body.branches.map((item) => item.versionTitle)).toEqual(['1.0.1']);

    await trpc.projects.versions.patch.mutate({ project: project.id, version: next.id, title: '1.0.1-hotfix' });
    expect((await storePage(server, project.id)).body.branches[0]?.versionTitle).toBe('1.0.1-hotfix');
    // tRPC reads the same cache.
    expect((await server.trpc().store.project.query({ project: project.id })).branches[0]?.versionTitle).toBe('1.0.1-hotfix');

    await trpc.projects.branches.patch.mutate({ project: project.id, branch, title: 'release' });
    expect((await storePage(server, project.id)).body.branches.map((item) => item.title)).toEqual(['release']);

    await trpc.projects.description.put.mutate({ project: project.id, description: { markdown: 'Now with dragons.', lang: 'en', images: [] } });
    expect((await storePage(server, project.id)).body.description.markdown).toBe('Now with dragons.');

    await trpc.projects.patch.mutate({ project: project.id, title: 'Dragon Courier' });
    expect((await storePage(server, project.id)).body.title).toBe('Dragon Courier');

    await trpc.projects.branches.patch.mutate({ project: project.id, branch, isPublic: false });
    expect((await storePage(server, project.id)).body.branches).toEqual([]);

    await trpc.projects.patch.mutate({ project: project.id, isPublic: false });
    expect((await storePage(server, project.id)).status).toBe(404);
  });

  test("the owner's name and public credentials, which show on every page they own", async () => {
    const owner = await registerUser(server);
    const first = await publicProjectWithBranch(owner);
    const second = await publicProjectWithBranch(owner);
    await storePage(server, first.project.id);
    await storePage(server, second.project.id);
    await server.trpc(owner.token).users.rename.mutate({ title: 'Renamed Studio' });
    expect((await storePage(server, first.project.id)).body.owner.title).toBe('Renamed Studio');
    expect((await storePage(server, second.project.id)).body.owner.title).toBe('Renamed Studio');

    // Credentials change through their own endpoints (issue: linked accounts); the trigger covers any write.
    const before = (await storePage(server, first.project.id)).body.owner.credentials.length;
    await server.deps.db.insert(credentials).values({ id: `cred-${owner.id}`, userId: owner.id, provider: 'github', name: `gh-${owner.id}`, title: 'gh', isPublic: true });
    // A write outside any request: wait for its notification the way a write request does.
    await syncStoreCache(server.deps.database);
    expect((await storePage(server, first.project.id)).body.owner.credentials.length).toBe(before + 1);
    await server.deps.db.delete(credentials).where(eq(credentials.name, `gh-${owner.id}`));
    await syncStoreCache(server.deps.database);
    expect((await storePage(server, first.project.id)).body.owner.credentials.length).toBe(before);
  });

  test("a package's rename and new tags reach its summary; a rename back to none gives the derived title", async () => {
    const owner = await registerUser(server);
    const { project, branch, trpc } = await publicProjectWithBranch(owner);
    const pkg = await uploadPackage(server, owner, project.id, { 'game.sh': '#!/bin/sh\n' }, { tags: ['os:linux'], title: 'Miner' });
    const next = await trpc.projects.versions.create.mutate({ project: project.id, title: '1.1.0', description: '', packages: [pkg.id] });
    await trpc.projects.versions.publish.mutate({ project: project.id, branch, version: next.id });
    const summary = async () => (await storePage(server, project.id)).body.branches[0]?.packages;
    expect(await summary()).toEqual([{ id: pkg.id, title: 'Miner', tags: ['os:linux'], size: pkg.size }]);
    expect(await summary()).toEqual([{ id: pkg.id, title: 'Miner', tags: ['os:linux'], size: pkg.size }]);

    await trpc.packages.patch.mutate({ project: project.id, package: pkg.id, title: 'Star Miner' });
    expect((await summary())?.[0]?.title).toBe('Star Miner');
    // tRPC reads the same cache.
    expect((await server.trpc().store.project.query({ project: project.id })).branches[0]?.packages[0]?.title).toBe('Star Miner');

    const patched = await server.fetch(`/api/projects/${project.id}/packages/${pkg.id}`, { method: 'PATCH', token: owner.token, json: { title: null, tags: ['os:linux', 'arch:x86'] } });
    expect(patched.status).toBe(200);
    const renamed = (await patched.json()) as { title: string; tags: string[] };
    expect(renamed.title).not.toBe('Star Miner');
    expect(renamed.tags).toContain('arch:x86');
    expect(await summary()).toEqual([{ id: pkg.id, title: renamed.title, tags: renamed.tags, size: pkg.size }]);
  });

  test('deleting the branch and deleting the project', async () => {
    const owner = await registerUser(server);
    const { project, branch, trpc } = await publicProjectWithBranch(owner);
    expect((await storePage(server, project.id)).body.branches).toHaveLength(1);
    await trpc.projects.branches.delete.mutate({ project: project.id, branch });
    expect((await storePage(server, project.id)).body.branches).toEqual([]);
    await trpc.projects.delete.mutate({ project: project.id });
    expect((await storePage(server, project.id)).status).toBe(404);
  });
});

// N processes on one PostgreSQL: a change made through one process reaches the other's cache.
if (process.env.DATABASE_URL) describe('two processes on one PostgreSQL database', () => {
  /** A second server process's worth (its own deps and listener) on the same database, for `use`. */
  async function withOtherProcess(use: (otherUrl: string) => Promise<void>): Promise<void> {
    const other = await bootDeps(
      loadConfig(secondProcessEnv(server)),
    );
    const otherServer = startServer(other, { port: 0, hostname: '127.0.0.1' });
    try {
      await use(otherServer.url);
    } finally {
      await otherServer.stop();
      await closeDeps(other);
    }
  }

  /** Reads the other process's page until `done` says so (it learns of changes by NOTIFY, milliseconds later at most). */
  async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + 5000;
    let value = await read();
    while (!done(value) && Date.now() < deadline) {
      await Bun.sleep(20);
      value = await read();
    }
    return value;
  }

  test("a project made public through one process shows in the other, which had cached its not_found", async () => {
    await withOtherProcess(async (otherUrl) => {
      const owner = await registerUser(server);
      const project = await createProject(server, owner);
      expect((await storePage(otherUrl, project.id)).status).toBe(404);
      expect((await storePage(otherUrl, project.id)).status).toBe(404);
      await makePublic(server, project, owner);
      expect(await eventually(async () => (await storePage(otherUrl, project.id)).status, (status) => status === 200)).toBe(200);
    });
  });

  test("a publish through one process shows in the other's cached page", async () => {
    await withOtherProcess(async (otherUrl) => {
      const owner = await registerUser(server);
      const { project, branch, trpc } = await publicProjectWithBranch(owner);
      expect((await storePage(otherUrl, project.id)).body.branches[0]?.versionTitle).toBe('1.0.0');
      expect((await storePage(otherUrl, project.id)).body.branches[0]?.versionTitle).toBe('1.0.0');
      const next = await trpc.projects.versions.create.mutate({ project: project.id, title: '2.0.0', description: '', packages: [] });
      await trpc.projects.versions.publish.mutate({ project: project.id, branch, version: next.id });
      const seen = await eventually(async () => (await storePage(otherUrl, project.id)).body.branches[0]?.versionTitle ?? '', (title) => title === '2.0.0');
      expect(seen).toBe('2.0.0');
    });
  });
});
