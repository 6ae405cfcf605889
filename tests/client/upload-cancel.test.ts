import { afterAll, beforeAll, expect, test } from 'bun:test';
import { addFile, bytesSource, createTree } from '../../src/shared/archive/index.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import type { PackageDraft } from '../../src/client/upload/package-draft.ts';
import { createUploadQueue, type UploadQueue } from '../../src/client/upload/upload-queue.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { addMember, createProject, type TestProject } from '../support/projects.ts';
import { startTestProxy, type TestProxy } from '../support/http-proxy.ts';
import { noise } from '../support/noise.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * A cancelled upload (queue.cancel: the item removed from the version dialog, or the dialog closed)
 * deletes the package record the server made, best effort. Real server in process, reached through
 * the test proxy (which fails chosen requests). That a finished upload is left alone is tested in
 * tests/e2e/upload-cancel.test.ts, through the version dialog.
 */
const PART_SIZE = 64 * 1024;
let server: TestServer;
let proxy: TestProxy;
let owner: TestUser;
let developer: TestUser;
let project: TestProject;

beforeAll(async () => {
  proxy = startTestProxy();
  server = await startTestServer({ UPLOAD_PART_SIZE: String(PART_SIZE), PUBLIC_URL: proxy.url });
  proxy.target = server.url;
  owner = await registerUser(server);
  developer = await registerUser(server);
  project = await createProject(server, owner);
  await addMember(server, project, developer, 'developer');
});

afterAll(async () => {
  proxy.stop();
  await server.stop();
});

function draftOf(bytes: Uint8Array): PackageDraft {
  const tree = createTree();
  addFile(tree, 'game.bin', bytesSource(bytes));
  return { tree, tags: ['os:linux'], title: null, basePackage: null };
}

async function listedIds(): Promise<string[]> {
  const response = await server.fetch(`/api/projects/${project.id}/packages`, { token: owner.token });
  return ((await response.json()) as Package[]).map((item) => item.id);
}

/** A queue acting as `user` that cancels its upload once the first part is acknowledged. */
function cancellingQueue(user: TestUser): { queue: UploadQueue; created: () => string | null } {
  let created: string | null = null;
  let cancelled = false;
  const queue: UploadQueue = createUploadQueue({
    api: { origin: proxy.url, token: user.token },
    retryDelayMs: 20,
    onEvent: (event) => {
      if (event.type === 'created') created = event.resume.packageId;
      if (event.type === 'part' && !cancelled) {
        cancelled = true;
        queue.cancel('one');
      }
    },
  });
  return { queue, created: () => created };
}

test('cancelled mid-upload: the record the server made is deleted, the upload ends as request_aborted', async () => {
  const { queue, created } = cancellingQueue(owner);
  const final = await queue.add('one', { project: project.id, draft: draftOf(noise(600_000, 21)) });
  expect(final).toMatchObject({ status: 'errored', error: 'request_aborted', packageId: null });
  const id = created();
  expect(id).toBeString();
  expect(await listedIds()).not.toContain(id!);
  expect((await server.fetch(`/api/projects/${project.id}/packages/${id}`, { token: owner.token })).status).toBe(404);
});

test('a failed delete is tried once more', async () => {
  proxy.fail('DELETE', /\/packages\/[^/]+$/, 1);
  const { queue, created } = cancellingQueue(owner);
  const final = await queue.add('one', { project: project.id, draft: draftOf(noise(600_000, 22)) });
  expect(final.error).toBe('request_aborted');
  expect(await listedIds()).not.toContain(created()!);
});

test('a developer cancels the upload they started: an unfinished upload may be deleted by whoever may upload', async () => {
  const { queue, created } = cancellingQueue(developer);
  const final = await queue.add('one', { project: project.id, draft: draftOf(noise(600_000, 23)) });
  expect(final).toMatchObject({ status: 'errored', error: 'request_aborted' });
  expect(await listedIds()).not.toContain(created()!);
});

test('a delete that keeps failing never reaches the caller as an error; the record is left to the storage sweep', async () => {
  proxy.fail('DELETE', /\/packages\/[^/]+$/, 2);
  const { queue, created } = cancellingQueue(owner);
  const final = await queue.add('one', { project: project.id, draft: draftOf(noise(600_000, 24)) });
  expect(final).toMatchObject({ status: 'errored', error: 'request_aborted' });
  expect(await listedIds()).toContain(created()!);
});
