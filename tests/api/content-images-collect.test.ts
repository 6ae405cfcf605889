import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { contentImagePath, type FinalizedContentImage } from '../../src/shared/schemas/content-images.ts';
import { contentImages, jobs } from '../../src/server/db/schema/index.ts';
import { collectContentImages, sweepContentImageStorage } from '../../src/server/domains/content-images/collect.service.ts';
import { contentImagePartKey } from '../../src/server/domains/content-images/content-image-keys.ts';
import { sweepStorage } from '../../src/server/domains/packages/chunks/storage-sweep.service.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { uploadContentImage } from '../support/content-images.ts';
import { photoLike } from '../support/images.ts';
import { putPart } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { directJobContext } from '../support/job-context.ts';

/**
 * Collection of content images (collect.service.ts) and their storage sweep: images a
 * description references stay (the project description's images list, its markdown, a version's
 * markdown), the others go once unreferenced for the grace period (24 h here, the default), with their
 * blobs; uploads never finished go after their token expired; the quota counts what is left. The
 * sweep keeps every blob of a live image and removes what a crash left.
 */
let server: TestServer;
let owner: TestUser;
const hour = 3_600_000;
const quota = 6;

beforeAll(async () => {
  server = await startTestServer({ QUOTA_CONTENT_IMAGES: String(quota) });
  owner = await registerUser(server);
}, 30_000);
afterAll(() => server?.stop());

let seed = 0;
const small = () => photoLike(64, 48, { format: 'png', seed: ++seed });
const upload = async (project: TestProject) => uploadContentImage(server, owner, project.id, await small(), 64, 48);
const pathOf = (image: FinalizedContentImage) => new URL(image.url).pathname;
const served = async (image: FinalizedContentImage) => (await server.fetch(pathOf(image))).status;
const rowOf = async (id: string) => (await server.deps.db.select().from(contentImages).where(eq(contentImages.id, id)))[0];
const keysOf = async (id: string) => {
  const keys: string[] = [];
  for await (const item of server.deps.storage.list(`content-images/${id}/`)) keys.push(item.key);
  return keys;
};
const putDescription = async (project: TestProject, markdown: string, images: FinalizedContentImage[] = []) => {
  const response = await server.fetch(`/api/projects/${project.id}/description`, {
    method: 'PUT',
    token: owner.token,
    json: { markdown, lang: 'en', images: images.map((image) => ({ id: image.id, width: image.width, height: image.height, scale: image.scale, url: image.url })) },
  });
  expect(response.status).toBe(200);
};

/** The queued runs of a periodic job: they are scheduled as the server starts, not before it answers, so give it a moment. */
const queuedRunsOf = async (kind: string) => {
  const queuedRuns = () => server.deps.db.select().from(jobs).where(and(eq(jobs.kind, kind), eq(jobs.status, 'queued')));
  let queued = await queuedRuns();
  for (let tries = 0; queued.length === 0 && tries < 100; tries++) {
    await Bun.sleep(50);
    queued = await queuedRuns();
  }
  return queued;
};

test('the collector is queued when the server starts, hourly', async () => {
  const queued = await queuedRunsOf('content_images_collect');
  expect(queued).toHaveLength(1);
  expect(queued[0]!.runAt.getTime()).toBeGreaterThan(Date.now());
});

test('the content images storage sweep is queued when the server starts, every 6 hours', async () => {
  const queued = await queuedRunsOf('content_images_storage_sweep');
  expect(queued).toHaveLength(1);
  expect(queued[0]!.dedupeKey).toBe('content_images_storage_sweep');
  expect(queued[0]!.runAt.getTime()).toBeGreaterThan(Date.now() + 5 * hour);
});

describe('collection', () => {
  test('referenced images stay (images list, project markdown, version markdown); unreferenced ones go after the grace period, blobs too', async () => {
    const project = await createProject(server, owner);
    const other = await createProject(server, owner);
    const [listed, inMarkdown, inVersion, unused] = [await upload(project), await upload(project), await upload(project), await upload(project)];
    await putDescription(project, `![a](${listed.url}) and ![b](${contentImagePath(inMarkdown.id, 64)})`, [listed]);
    const version = await server.fetch(`/api/projects/${project.id}/versions`, { method: 'POST', token: owner.token, json: { title: '1.0', description: `Patch notes ![shot](${inVersion.url})` } });
    expect(version.status).toBe(200);
    // Another project's markdown linking the URL does not keep it.
    await putDescription(other, `![stolen](${unused.url})`);

    // Within the grace period nothing goes.
    expect(await collectContentImages(server.deps, Date.now() + 23 * hour)).toMatchObject({ referenced: 3, collected: 0 });
    const result = await collectContentImages(server.deps, Date.now() + 25 * hour);
    expect(result).toMatchObject({ collected: 1 });
    expect(result.blobs).toBe(1 + 3); // the original and one width in three formats
    expect(await rowOf(unused.id)).toBeUndefined();
    expect(await keysOf(unused.id)).toEqual([]);
    expect(await served(unused)).toBe(404);
    for (const image of [listed, inMarkdown, inVersion]) {
      expect(await served(image)).toBe(200);
      expect(await keysOf(image.id)).toHaveLength(4);
    }
  });

  test('an image stays for the grace period after its last reference went', async () => {
    const project = await createProject(server, owner);
    const image = await upload(project);
    await putDescription(project, `![x](${image.url})`, [image]);
    const t0 = Date.now() + 48 * hour; // long after finalize: only the reference keeps it
    expect(await collectContentImages(server.deps, t0)).toMatchObject({ collected: 0 });
    expect((await rowOf(image.id))!.lastReferencedAt!.getTime()).toBe(t0);
    await putDescription(project, 'no pictures any more');
    expect(await collectContentImages(server.deps, t0 + 23 * hour)).toMatchObject({ collected: 0 });
    expect(await served(image)).toBe(200);
    expect(await collectContentImages(server.deps, t0 + 25 * hour)).toMatchObject({ collected: 1 });
    expect(await served(image)).toBe(404);
  });

  test('uploads never finished go an hour after their token expired; refused ones after the grace period', async () => {
    const project = await createProject(server, owner);
    const bytes = await small();
    const created = await server.fetch(`/api/projects/${project.id}/content/images`, { method: 'POST', token: owner.token, json: { size: bytes.length, width: 64, height: 48 } });
    const { id, uploadInfo } = await created.json();
    expect((await putPart(uploadInfo, 0, bytes)).status).toBe(200);
    const refused = await server.fetch(`/api/projects/${project.id}/content/images`, { method: 'POST', token: owner.token, json: { size: 5, width: 1, height: 1 } });
    const bad = await refused.json();
    expect((await putPart(bad.uploadInfo, 0, new TextEncoder().encode('hello'))).status).toBe(200);
    const finalize = await server.fetch(`/api/projects/${project.id}/content/images/${bad.id}/finalize`, {
      method: 'PUT',
      json: { token: bad.uploadInfo.token, parts: [{ part: 0, hash: new Bun.CryptoHasher('sha1').update('hello').digest('hex'), size: 5 }] },
    });
    expect(finalize.status).toBe(400);
    expect((await rowOf(bad.id))!.status).toBe('errored');

    expect(await collectContentImages(server.deps, Date.now() + 23 * hour)).toMatchObject({ collected: 0 });
    // The refused one goes after the grace period (24 h); the upload's token lives UPLOAD_HOURS (24):
    // at 24.5 h it expired half an hour ago, so it is kept a little longer.
    expect(await collectContentImages(server.deps, Date.now() + 24.5 * hour)).toMatchObject({ collected: 1 });
    expect(await rowOf(bad.id)).toBeUndefined();
    expect((await rowOf(id))!.status).toBe('uploading');
    expect(await collectContentImages(server.deps, Date.now() + 26 * hour)).toMatchObject({ collected: 1, blobs: 1 });
    expect(await rowOf(id)).toBeUndefined();
    expect(await keysOf(id)).toEqual([]);
  });

  test('QUOTA_CONTENT_IMAGES: a project holding as many as it may is limit_exceeded until the collector frees room', async () => {
    const project = await createProject(server, owner);
    const create = () => server.fetch(`/api/projects/${project.id}/content/images`, { method: 'POST', token: owner.token, json: { size: 100, width: 10, height: 10 } });
    for (let i = 0; i < quota; i++) expect((await create()).status).toBe(200);
    const refused = await create();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      code: 'limit_exceeded',
      message: `This project holds as many images as it may (${quota}); images no description uses are removed after 24 hours`,
      details: { limit: quota },
    });
    // Another project is not affected.
    expect((await server.fetch(`/api/projects/${(await createProject(server, owner)).id}/content/images`, { method: 'POST', token: owner.token, json: { size: 100, width: 10, height: 10 } })).status).toBe(200);
    await collectContentImages(server.deps, Date.now() + 26 * hour);
    expect((await create()).status).toBe(200);
  });
});

describe('the storage sweep', () => {
  test("keeps every blob of live images and removes crash leftovers: rows gone, parts of finished images, sizes nobody lists", async () => {
    const project = await createProject(server, owner);
    const live = await upload(project);
    const pending = await server.fetch(`/api/projects/${project.id}/content/images`, { method: 'POST', token: owner.token, json: { size: 10, width: 10, height: 10 } });
    const uploading = await pending.json();
    expect((await putPart(uploading.uploadInfo, 0, new Uint8Array(10))).status).toBe(200);
    const liveKeys = (await keysOf(live.id)).sort();
    expect(liveKeys).toHaveLength(4);

    // What crashes leave: a collected image's blobs (row deleted, process died), a finished image's part,
    // a size its row does not list, and the blobs of a deleted project's image.
    const gone = await upload(project);
    await server.deps.db.delete(contentImages).where(eq(contentImages.id, gone.id));
    await server.deps.storage.put(contentImagePartKey(live.id, 0), new Uint8Array(5));
    await server.deps.storage.put(`content-images/${live.id}/2560.avif`, new Uint8Array(5));
    const doomedProject = await createProject(server, owner);
    const orphan = await upload(doomedProject);
    expect((await server.fetch(`/api/projects/${doomedProject.id}`, { method: 'DELETE', token: owner.token })).status).toBe(200);
    expect(await rowOf(orphan.id)).toBeUndefined();

    // The packages' sweep does not look under content-images/.
    await sweepStorage(server.deps, Date.now() + 2 * hour);
    expect((await keysOf(live.id)).length).toBe(6);
    // Nothing written within the hour is touched.
    expect(await sweepContentImageStorage(server.deps)).toEqual({ orphans: 0, parts: 0, stale: 0 });
    const result = await sweepContentImageStorage(server.deps, Date.now() + 2 * hour);
    expect(result).toEqual({ orphans: 8, parts: 1, stale: 1 });
    expect((await keysOf(live.id)).sort()).toEqual(liveKeys);
    expect(await keysOf(gone.id)).toEqual([]);
    expect(await keysOf(orphan.id)).toEqual([]);
    expect(await keysOf(uploading.id)).toEqual([contentImagePartKey(uploading.id, 0)]);
    expect(await served(live)).toBe(200);
  });

  test('each domain runs its own sweep job, every 6 hours: storage_sweep the packages, content_images_storage_sweep the images', async () => {
    const { storageSweepJob } = await import('../../src/server/domains/packages/chunks/storage-sweep.job.ts');
    const { contentImagesStorageSweepJob } = await import('../../src/server/domains/content-images/storage-sweep.job.ts');
    const { serverJobs } = await import('../../src/server/jobs-list.ts');
    expect(serverJobs).toContain(contentImagesStorageSweepJob);
    expect(contentImagesStorageSweepJob.everyMs).toBe(storageSweepJob.everyMs);
    const context = directJobContext('x');
    const packages = (await storageSweepJob.execute(server.deps, { payload: {} } as never, context)) as Record<string, unknown>;
    expect(packages).toMatchObject({ chunks: expect.any(Number) });
    const images = await contentImagesStorageSweepJob.execute(server.deps, { payload: {} } as never, context);
    expect(images).toEqual({ orphans: expect.any(Number), parts: expect.any(Number), stale: expect.any(Number) });
  });

});
