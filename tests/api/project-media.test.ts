import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { contentImagePath, type FinalizedContentImage } from '../../src/shared/schemas/content-images.ts';
import type { UploadInfo } from '../../src/shared/schemas/packages.ts';
import type { ProjectMedia } from '../../src/shared/schemas/project-media.ts';
import { contentImages, projectMedia } from '../../src/server/db/schema/index.ts';
import { collectContentImages } from '../../src/server/domains/content-images/collect.service.ts';
import { syncStoreCache } from '../../src/server/domains/store/store-cache.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { uploadContentImage } from '../support/content-images.ts';
import { photoLike } from '../support/images.ts';
import { putPart, sha1Hex } from '../support/packages.ts';
import { addStar, createApiToken, createProject, makePublic, makeTeam, type Team, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailure, trpcFailureStatus } from '../support/trpc-failure.ts';

/**
 * A project's cover and screenshots (issue 19): GET/PUT /projects/{project}/media and tRPC
 * projects.media.get/put. Ids must be finalized content images of the project (another project's,
 * unknown, unfinalized or refused ones are refused), screenshots keep their order without repeats (at
 * most 12); the reply describes each image as markdown images are listed. Reading follows the project
 * GET, writing needs patchProject. The store page carries the media and hears of every change; the
 * collector keeps media images and collects them once unset and past the grace period.
 */
let server: TestServer;
let team: Team;
const hour = 3_600_000;

beforeAll(async () => {
  server = await startTestServer();
  team = await makeTeam(server);
}, 30_000);
afterAll(() => server?.stop());

let seed = 0;
const upload = async (project: TestProject, user: TestUser = team.owner, width = 64, height = 48) =>
  uploadContentImage(server, user, project.id, await photoLike(width, height, { format: 'png', seed: ++seed }), width, height);
const described = (image: FinalizedContentImage) => ({ id: image.id, width: image.width, height: image.height, scale: image.scale, url: image.url });
const mediaPath = (project: TestProject) => `/api/projects/${project.id}/media`;
const getMedia = (project: TestProject, user?: TestUser) => server.fetch(mediaPath(project), { token: user?.token });
/** `null`: a visitor (no token). */
const putMedia = (project: TestProject, body: unknown, user: TestUser | null = team.owner) => server.fetch(mediaPath(project), { method: 'PUT', token: user?.token, json: body });

async function expectError(response: Response, status: number, code: string, message?: RegExp | string): Promise<{ code: string; message: string; details?: unknown }> {
  const body = (await response.json()) as { code: string; message: string; details?: unknown };
  expect({ status: response.status, code: body.code }).toEqual({ status, code });
  if (typeof message === 'string') expect(body.message).toBe(message);
  else if (message) expect(body.message).toMatch(message);
  return body;
}

async function mediaOf(project: TestProject): Promise<ProjectMedia> {
  const response = await getMedia(project, team.owner);
  expect(response.status).toBe(200);
  return (await response.json()) as ProjectMedia;
}

/** An image record whose upload never finished (no part, no finalize). */
async function unfinalized(project: TestProject): Promise<string> {
  const created = await server.fetch(`/api/projects/${project.id}/content/images`, { method: 'POST', token: team.owner.token, json: { size: 100, width: 10, height: 10 } });
  expect(created.status).toBe(200);
  return ((await created.json()) as { id: string }).id;
}

/** An image finalize refused (the bytes are no image): 'errored'. */
async function refused(project: TestProject): Promise<string> {
  const bytes = new TextEncoder().encode('this is not a picture at all');
  const created = await server.fetch(`/api/projects/${project.id}/content/images`, { method: 'POST', token: team.owner.token, json: { size: bytes.length, width: 10, height: 10 } });
  const { id, uploadInfo } = (await created.json()) as { id: string; uploadInfo: UploadInfo };
  expect((await putPart(uploadInfo, 0, bytes)).status).toBe(200);
  const finalized = await server.fetch(`/api/projects/${project.id}/content/images/${id}/finalize`, {
    method: 'PUT',
    json: { token: uploadInfo.token, parts: [{ part: 0, hash: sha1Hex(bytes), size: bytes.length }] },
  });
  expect(finalized.status).toBe(400);
  return id;
}

describe('GET and PUT .../media', () => {
  test('a new project has none; PUT sets the cover and screenshots in order, GET and tRPC answer the same', async () => {
    const project = await createProject(server, team.owner);
    expect(await mediaOf(project)).toEqual({ cover: null, screenshots: [] });
    const cover = await upload(project, team.owner, 700, 400);
    const [first, second, third] = [await upload(project), await upload(project), await upload(project)];
    // url: the largest size, as finalize answered it (the request's origin without PUBLIC_URL).
    expect(cover.url).toBe(`${server.url}${contentImagePath(cover.id, 700)}`);

    const put = await putMedia(project, { cover: cover.id, screenshots: [third.id, first.id, second.id] });
    expect(put.status).toBe(200);
    const expected = { cover: described(cover), screenshots: [described(third), described(first), described(second)] };
    expect(await put.json()).toEqual(expected);
    expect(await mediaOf(project)).toEqual(expected);
    expect(await server.trpc(team.owner.token).projects.media.get.query({ project: project.id })).toEqual(expected);

    // tRPC writes through the same service; the cover may also be a screenshot.
    const again = await server.trpc(team.owner.token).projects.media.put.mutate({ project: project.id, cover: first.id, screenshots: [first.id, cover.id] });
    expect(again).toEqual({ cover: described(first), screenshots: [described(first), described(cover)] });
    expect(await mediaOf(project)).toEqual(again);

    // Screenshots only, then nothing.
    expect(await (await putMedia(project, { cover: null, screenshots: [second.id] })).json()).toEqual({ cover: null, screenshots: [described(second)] });
    expect(await (await putMedia(project, { cover: null, screenshots: [] })).json()).toEqual({ cover: null, screenshots: [] });
    expect(await server.deps.db.select().from(projectMedia).where(eq(projectMedia.projectId, project.id))).toEqual([]);
  });

  test('twelve screenshots are taken; an API token acts as its user', async () => {
    const project = await createProject(server, team.owner);
    const images: FinalizedContentImage[] = [];
    for (let i = 0; i < 12; i++) images.push(await upload(project));
    const token = await createApiToken(server, team.owner);
    const response = await server.fetch(mediaPath(project), { method: 'PUT', token, json: { cover: images[0]!.id, screenshots: images.map((image) => image.id) } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as ProjectMedia).screenshots.map((image) => image.id)).toEqual(images.map((image) => image.id));
  });
});

describe('refusals', () => {
  let project: TestProject;
  let kept: ProjectMedia;
  let mine: FinalizedContentImage;

  beforeAll(async () => {
    project = await createProject(server, team.owner);
    mine = await upload(project);
    const put = await putMedia(project, { cover: mine.id, screenshots: [mine.id] });
    kept = (await put.json()) as ProjectMedia;
  });

  test("another project's image and an unknown id: not_found 'content image not found', naming the id", async () => {
    const other = await createProject(server, team.owner);
    const theirs = await upload(other);
    const foreign = await expectError(await putMedia(project, { cover: theirs.id, screenshots: [] }), 404, 'not_found', 'content image not found');
    expect(foreign.details).toEqual({ id: theirs.id });
    await expectError(await putMedia(project, { cover: null, screenshots: [mine.id, theirs.id] }), 404, 'not_found', 'content image not found');
    const unknown = await expectError(await putMedia(project, { cover: mine.id, screenshots: ['nosuchimage0000000000'] }), 404, 'not_found', 'content image not found');
    expect(unknown.details).toEqual({ id: 'nosuchimage0000000000' });
    expect(await trpcFailureStatus(server.trpc(team.owner.token).projects.media.put.mutate({ project: project.id, cover: theirs.id, screenshots: [] }))).toEqual({ code: 'not_found', httpStatus: 404 });
    // The image is not the project's own even in the database: the key refuses it too.
    const inserted = server.deps.db
      .insert(projectMedia)
      .values({ projectId: project.id, role: 'screenshot', position: 5, imageId: theirs.id })
      .then(() => 'inserted', (error: Error) => String((error.cause as Error | undefined)?.message ?? error.message));
    expect(await inserted).toMatch(/project_media_image_fk|foreign key/);
    expect(await mediaOf(project)).toEqual(kept);
  });

  test('an image still uploading, and one finalize refused: not_finalized', async () => {
    const uploading = await unfinalized(project);
    const body = await expectError(await putMedia(project, { cover: uploading, screenshots: [] }), 409, 'not_finalized', /not finalized/);
    expect(body.details).toEqual({ id: uploading });
    const errored = await refused(project);
    await expectError(await putMedia(project, { cover: null, screenshots: [mine.id, errored] }), 409, 'not_finalized', /refused/);
    expect(await trpcFailureStatus(server.trpc(team.owner.token).projects.media.put.mutate({ project: project.id, cover: null, screenshots: [uploading] }))).toEqual({
      code: 'not_finalized',
      httpStatus: 409,
    });
    expect(await mediaOf(project)).toEqual(kept);
  });

  test('repeats, more than 12 screenshots, wrong types, missing fields, NUL and hostile ids: bad_param', async () => {
    const thirteen = Array.from({ length: 13 }, (_, i) => `image${i}`);
    const bodies: unknown[] = [
      { cover: null, screenshots: [mine.id, mine.id] },
      { cover: null, screenshots: thirteen },
      {},
      { cover: mine.id },
      { screenshots: [] },
      { cover: 12, screenshots: [] },
      { cover: null, screenshots: mine.id },
      { cover: null, screenshots: [12] },
      { cover: null, screenshots: [null] },
      { cover: { id: mine.id }, screenshots: [] },
      { cover: 'a\u0000b', screenshots: [] },
      { cover: null, screenshots: ['a\u0000b'] },
      { cover: '../../etc/passwd', screenshots: [] },
      { cover: '', screenshots: [] },
      { cover: 'x'.repeat(65), screenshots: [] },
      { cover: null, screenshots: [], extra: { __proto__: { admin: true } } },
      [],
      'cover',
      null,
    ];
    for (const body of bodies) {
      const response = await putMedia(project, body);
      const code = response.status === 200 ? 'ok' : ((await response.json()) as { code: string }).code;
      // Unknown keys are dropped: the body with `extra` is a valid "no media" request, checked last.
      if (body && typeof body === 'object' && 'extra' in body) {
        expect(response.status).toBe(200);
        continue;
      }
      expect({ body, status: response.status, code }).toEqual({ body, status: 400, code: 'bad_param' });
    }
    const repeat = await trpcFailure(server.trpc(team.owner.token).projects.media.put.mutate({ project: project.id, cover: null, screenshots: [mine.id, mine.id] }));
    expect([repeat.code, repeat.httpStatus]).toEqual(['bad_param', 400]);
    expect((await trpcFailureStatus(server.trpc(team.owner.token).projects.media.put.mutate({ project: project.id, cover: null, screenshots: thirteen }))).code).toBe('bad_param');
    // Put the media back for the tests after this one.
    expect((await putMedia(project, { cover: mine.id, screenshots: [mine.id] })).status).toBe(200);
  });

  test('a huge body is refused before it is read whole (413); a bad project id is refused, never a 500', async () => {
    const huge = await putMedia(project, { cover: null, screenshots: ['x'.repeat(2 * 1024 * 1024)] });
    expect(huge.status).toBe(413);
    for (const id of ['a%00b', 'x'.repeat(300), '..%2F..%2Fetc', 'nosuchproject']) {
      const response = await server.fetch(`/api/projects/${id}/media`, { method: 'PUT', token: team.owner.token, json: { cover: null, screenshots: [] } });
      expect([400, 404]).toContain(response.status);
    }
    expect(await mediaOf(project)).toEqual(kept);
  });
});

describe('who may read and write', () => {
  test('GET: members always, anyone on a public project; PUT: owner and admins (patchProject), others refused as for PATCH', async () => {
    const privateProject = team.project;
    const image = await upload(privateProject);
    const body = { cover: image.id, screenshots: [] };
    for (const user of [team.owner, team.admin]) expect((await putMedia(privateProject, body, user)).status).toBe(200);
    await expectError(await putMedia(privateProject, body, team.developer), 403, 'insufficient_privileges');
    await expectError(await putMedia(privateProject, body, team.tester), 403, 'insufficient_privileges');
    await expectError(await putMedia(privateProject, body, team.outsider), 404, 'not_found', 'project not found');
    await expectError(await putMedia(privateProject, body, null), 404, 'not_found', 'project not found');
    for (const user of [team.owner, team.admin, team.developer, team.tester]) expect((await getMedia(privateProject, user)).status).toBe(200);
    await expectError(await getMedia(privateProject, team.outsider), 404, 'not_found', 'project not found');
    await expectError(await getMedia(privateProject), 404, 'not_found', 'project not found');
    expect(await trpcFailureStatus(server.trpc().projects.media.get.query({ project: privateProject.id }))).toEqual({ code: 'not_found', httpStatus: 404 });

    const shown = await createProject(server, team.owner);
    const shownImage = await upload(shown);
    await makePublic(server, shown, team.owner);
    await expectError(await putMedia(shown, { cover: shownImage.id, screenshots: [] }, team.outsider), 403, 'insufficient_privileges');
    const fan = await registerUser(server);
    await addStar(server, shown, fan);
    await expectError(await putMedia(shown, { cover: shownImage.id, screenshots: [] }, fan), 403, 'insufficient_privileges');
    expect((await getMedia(shown, fan)).status).toBe(200);
    await expectError(await putMedia(shown, { cover: shownImage.id, screenshots: [] }, null), 401, 'unauthorized');
    expect(await trpcFailureStatus(server.trpc().projects.media.put.mutate({ project: shown.id, cover: null, screenshots: [] }))).toEqual({ code: 'unauthorized', httpStatus: 401 });
    expect((await putMedia(shown, { cover: shownImage.id, screenshots: [] })).status).toBe(200);
    for (const user of [team.outsider, undefined]) {
      const response = await getMedia(shown, user);
      expect(response.status).toBe(200);
      expect(((await response.json()) as ProjectMedia).cover?.id).toBe(shownImage.id);
    }
    expect((await server.trpc().projects.media.get.query({ project: shown.id })).cover?.id).toBe(shownImage.id);
  });
});

describe('the store page', () => {
  type StorePage = { media: ProjectMedia };
  const storePage = async (project: TestProject) => (await (await server.fetch(`/api/store/projects/${project.id}`)).json()) as StorePage;

  test('carries the media (paths on the app origin without PUBLIC_URL) and shows every change on the next read', async () => {
    const owner = await registerUser(server);
    const project = await createProject(server, owner);
    await makePublic(server, project, owner);
    const [cover, shot] = [await upload(project, owner, 700, 400), await upload(project, owner)];
    // Cached now, twice.
    expect((await storePage(project)).media).toEqual({ cover: null, screenshots: [] });
    expect((await storePage(project)).media).toEqual({ cover: null, screenshots: [] });

    expect((await putMedia(project, { cover: cover.id, screenshots: [shot.id, cover.id] }, owner)).status).toBe(200);
    const asPath = (image: FinalizedContentImage) => ({ ...described(image), url: new URL(image.url).pathname });
    expect((await storePage(project)).media).toEqual({ cover: asPath(cover), screenshots: [asPath(shot), asPath(cover)] });
    expect((await storePage(project)).media.cover?.url).toBe(contentImagePath(cover.id, 700));
    expect((await server.trpc().store.project.query({ project: project.id })).media.screenshots.map((image) => image.id)).toEqual([shot.id, cover.id]);

    await server.trpc(owner.token).projects.media.put.mutate({ project: project.id, cover: null, screenshots: [shot.id] });
    expect((await storePage(project)).media).toEqual({ cover: null, screenshots: [asPath(shot)] });

    // An image that goes (here removed behind the API's back) takes its slot with it: no dangling cover.
    await server.deps.db.delete(contentImages).where(eq(contentImages.id, shot.id));
    await syncStoreCache(server.deps.database);
    expect((await storePage(project)).media).toEqual({ cover: null, screenshots: [] });
    expect(await mediaOf(project)).toEqual({ cover: null, screenshots: [] });
  });

  test('under PUBLIC_URL the store and GET .../media answer absolute URLs', async () => {
    const other = await startTestServer({ PUBLIC_URL: 'https://games.example.com' });
    try {
      const owner = await registerUser(other);
      const project = (await (await other.fetch('/api/projects', { method: 'POST', token: owner.token, json: { title: 'Far' } })).json()) as TestProject;
      await makePublic(other, project, owner);
      // The upload URL names PUBLIC_URL, which does not resolve here: the part goes to the server itself.
      const bytes = await photoLike(64, 48, { format: 'png' });
      const created = (await (await other.fetch(`/api/projects/${project.id}/content/images`, { method: 'POST', token: owner.token, json: { size: bytes.length, width: 64, height: 48 } })).json()) as { id: string; uploadInfo: UploadInfo };
      expect((await putPart({ ...created.uploadInfo, uploadUrl: created.uploadInfo.uploadUrl.replace('https://games.example.com', other.url) }, 0, bytes)).status).toBe(200);
      const finalized = await other.fetch(`/api/projects/${project.id}/content/images/${created.id}/finalize`, {
        method: 'PUT',
        json: { token: created.uploadInfo.token, parts: [{ part: 0, hash: sha1Hex(bytes), size: bytes.length }] },
      });
      const image = (await finalized.json()) as FinalizedContentImage;
      const put = await other.fetch(`/api/projects/${project.id}/media`, { method: 'PUT', token: owner.token, json: { cover: image.id, screenshots: [] } });
      const url = `https://games.example.com${contentImagePath(image.id, 64)}`;
      expect(((await put.json()) as ProjectMedia).cover?.url).toBe(url);
      expect(((await (await other.fetch(`/api/store/projects/${project.id}`)).json()) as StorePage).media.cover?.url).toBe(url);
    } finally {
      await other.stop();
    }
  });
});

describe('collection', () => {
  const rowOf = async (id: string) => (await server.deps.db.select().from(contentImages).where(eq(contentImages.id, id)))[0];

  test('a cover and screenshots stay past the grace period; once unset they go after it, blobs too', async () => {
    const project = await createProject(server, team.owner);
    const [cover, shot, spare] = [await upload(project), await upload(project), await upload(project)];
    expect((await putMedia(project, { cover: cover.id, screenshots: [shot.id] })).status).toBe(200);
    const start = Date.now();
    const first = await collectContentImages(server.deps, start + 25 * hour);
    expect(await rowOf(cover.id)).toBeDefined();
    expect(await rowOf(shot.id)).toBeDefined();
    // The spare one was never used: it goes.
    expect(await rowOf(spare.id)).toBeUndefined();
    expect(first.collected).toBeGreaterThanOrEqual(1);

    // Unset: the grace period counts from the last time the collector saw them in use.
    expect((await putMedia(project, { cover: null, screenshots: [] })).status).toBe(200);
    await collectContentImages(server.deps, start + 30 * hour);
    expect(await rowOf(cover.id)).toBeDefined();
    expect((await server.fetch(new URL(cover.url).pathname)).status).toBe(200);
    await collectContentImages(server.deps, start + 50 * hour);
    expect(await rowOf(cover.id)).toBeUndefined();
    expect(await rowOf(shot.id)).toBeUndefined();
    expect((await server.fetch(new URL(cover.url).pathname)).status).toBe(404);
    const keys: string[] = [];
    for await (const item of server.deps.storage.list(`content-images/${cover.id}/`)) keys.push(item.key);
    expect(keys).toEqual([]);
  });

  test('setting media restarts an old image’s grace period, so a collection at that moment keeps it', async () => {
    const project = await createProject(server, team.owner);
    const image = await upload(project);
    // Finalized long ago (as the collector will see it): set as cover now, it must survive.
    const longAgo = new Date(Date.now() - 100 * hour);
    await server.deps.db.update(contentImages).set({ finalizedAt: longAgo, createdAt: longAgo }).where(eq(contentImages.id, image.id));
    expect((await putMedia(project, { cover: image.id, screenshots: [] })).status).toBe(200);
    expect((await rowOf(image.id))!.lastReferencedAt!.getTime()).toBeGreaterThan(Date.now() - 60_000);
    await collectContentImages(server.deps);
    expect(await rowOf(image.id)).toBeDefined();
    expect((await mediaOf(project)).cover?.id).toBe(image.id);
  });
});
