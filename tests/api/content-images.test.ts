import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import sharp, { type FormatEnum } from 'sharp';
import { contentImageFormats, contentImagePath, maxContentImageBytes, type ContentImageFormat } from '../../src/shared/schemas/content-images.ts';
import type { UploadInfo } from '../../src/shared/schemas/packages.ts';
import { contentImages } from '../../src/server/db/schema/index.ts';
import { contentImageOriginalKey, contentImagePartKey } from '../../src/server/domains/content-images/content-image-keys.ts';
import type { TestUser } from '../support/accounts.ts';
import { exifTags, jpegWithExif, photoLike, pngBomb } from '../support/images.ts';
import { putPart, sha1Hex } from '../support/packages.ts';
import { createApiToken, createProject, makePublic, makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailure, trpcFailureStatus } from '../support/trpc-failure.ts';

/**
 * Content images (issue 19, spec §3, §4 image paste flow, §7): create → part 0 → finalize through REST
 * and tRPC with real images made by sharp; every size in every format served with its headers and
 * chosen by Accept; and the refusals: not an image, a decompression bomb, too large, wrong hash, wrong
 * token, a second finalize, another project's image, roles, hostile input.
 */
let server: TestServer;
let team: Team;

beforeAll(async () => {
  server = await startTestServer();
  team = await makeTeam(server);
}, 30_000);
afterAll(() => server?.stop());

type Created = { id: string; uploadInfo: UploadInfo };
type Finalized = { id: string; url: string; width: number; height: number; scale: number };

const imagesOf = (projectId: string) => `/api/projects/${projectId}/content/images`;

async function create(user: TestUser | undefined, projectId: string, body: unknown): Promise<Response> {
  return server.fetch(imagesOf(projectId), { method: 'POST', token: user?.token, json: body });
}

async function createOk(user: TestUser, projectId: string, bytes: Uint8Array, width: number, height: number, scale?: number): Promise<Created> {
  const response = await create(user, projectId, { size: bytes.length, width, height, ...(scale === undefined ? {} : { scale }) });
  expect(response.status).toBe(200);
  return (await response.json()) as Created;
}

function finalize(projectId: string, id: string, body: unknown): Promise<Response> {
  return server.fetch(`${imagesOf(projectId)}/${id}/finalize`, { method: 'PUT', json: body });
}

const partOf = (bytes: Uint8Array) => ({ part: 0, hash: sha1Hex(bytes), size: bytes.length });

/** The whole paste flow over REST; returns the finalize answer as it came. */
async function send(user: TestUser, projectId: string, bytes: Uint8Array, width: number, height: number): Promise<{ created: Created; response: Response }> {
  const created = await createOk(user, projectId, bytes, width, height);
  const part = await putPart(created.uploadInfo, 0, bytes);
  expect(part.status).toBe(200);
  const response = await finalize(projectId, created.id, { token: created.uploadInfo.token, parts: [await part.json()] });
  return { created, response };
}

async function sendOk(user: TestUser, projectId: string, bytes: Uint8Array, width: number, height: number): Promise<Finalized> {
  const { response } = await send(user, projectId, bytes, width, height);
  const text = await response.text();
  expect(`${response.status} ${text}`).toStartWith('200');
  return JSON.parse(text) as Finalized;
}

const mediaType: Record<ContentImageFormat, string> = { avif: 'image/avif', webp: 'image/webp', jpeg: 'image/jpeg' };
const sharpFormat: Record<ContentImageFormat, keyof FormatEnum> = { avif: 'heif', webp: 'webp', jpeg: 'jpeg' };

async function rowOf(id: string) {
  const [row] = await server.deps.db.select().from(contentImages).where(eq(contentImages.id, id));
  return row;
}

async function expectError(response: Response, status: number, code: string, message?: RegExp | string): Promise<{ code: string; message: string; details?: unknown }> {
  const body = (await response.json()) as { code: string; message: string; details?: unknown };
  expect({ status: response.status, code: body.code }).toEqual({ status, code });
  if (typeof message === 'string') expect(body.message).toBe(message);
  else if (message) expect(body.message).toMatch(message);
  return body;
}

describe('the paste flow', () => {
  test('a PNG: every width in every format, served with long caching, its own type and length, chosen by Accept', async () => {
    const png = await photoLike(1000, 600, { format: 'png', seed: 3 });
    const created = await createOk(team.developer, team.project.id, png, 1000, 600, 200);
    expect(created.uploadInfo).toMatchObject({ partSize: png.length, partHashAlgorithm: 'sha1' });
    expect(created.uploadInfo.uploadUrl).toBe(`${server.url}/api/uploads/content-images/${created.id}`);
    const part = await putPart(created.uploadInfo, 0, png);
    const descriptor = await part.json();
    expect(descriptor).toEqual(partOf(png));
    const response = await finalize(team.project.id, created.id, { token: created.uploadInfo.token, parts: [descriptor] });
    const finalized = (await response.json()) as Finalized;
    expect(response.status).toBe(200);
    expect(finalized).toEqual({ id: created.id, url: `${server.url}${contentImagePath(created.id, 1000)}`, width: 1000, height: 600, scale: 200 });

    const row = (await rowOf(created.id))!;
    expect(row.status).toBe('ready');
    expect(row.widths).toEqual([320, 640, 960, 1000]);
    expect(row.sourceFormat).toBe('png');
    // The part is gone; the normalised original stays for re-encoding.
    expect(await server.deps.storage.stat(contentImagePartKey(created.id, 0))).toBeUndefined();
    expect(await server.deps.storage.stat(contentImageOriginalKey(created.id))).toBeDefined();

    for (const width of row.widths) {
      const height = Math.round((600 * width) / 1000);
      for (const format of contentImageFormats) {
        // Asking for exactly one modern format gets it or JPEG, whichever is smaller.
        const accept = format === 'jpeg' ? 'image/png,*/*;q=0.8' : `${mediaType[format]},*/*;q=0.8`;
        const sizes = row.variants[String(width)]!;
        const expected: ContentImageFormat = format === 'jpeg' || sizes.jpeg! <= sizes[format]! ? 'jpeg' : format;
        const served = await server.fetch(contentImagePath(created.id, width), { headers: { accept } });
        const bytes = new Uint8Array(await served.arrayBuffer());
        expect(served.status).toBe(200);
        expect(served.headers.get('content-type')).toBe(mediaType[expected]);
        expect(served.headers.get('content-length')).toBe(String(bytes.length));
        expect(bytes.length).toBe(sizes[expected]!);
        expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        expect(served.headers.get('vary')).toBe('Accept');
        expect(served.headers.get('x-content-type-options')).toBe('nosniff');
        expect(served.headers.get('content-security-policy')).toContain("default-src 'none'");
        expect(served.headers.get('content-security-policy')).toContain('sandbox');
        expect(served.headers.get('etag')).toMatch(/^"[0-9a-z]+"$/);
        const metadata = await sharp(bytes).metadata();
        expect({ format: metadata.format, width: metadata.width, height: metadata.height }).toEqual({ format: sharpFormat[expected], width, height });
      }
      // Every format was made for every width, and each is a real image of that format.
      for (const format of contentImageFormats) {
        const stored = await server.deps.storage.read(`content-images/${created.id}/${width}.${format}`);
        expect((await sharp(stored).metadata()).format).toBe(sharpFormat[format]);
      }
    }
  }, 60_000);

  test('Accept: a browser naming AVIF and WebP gets the smallest; no Accept or */* gets JPEG; HEAD and If-None-Match work', async () => {
    const finalized = await sendOk(team.owner, team.project.id, await photoLike(700, 400, { format: 'jpeg', seed: 4 }), 700, 400);
    const row = (await rowOf(finalized.id))!;
    const sizes = row.variants['700']!;
    const smallest = (['avif', 'webp', 'jpeg'] as const).reduce((a, b) => (sizes[b]! < sizes[a]! ? b : a));
    const chrome = 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8';
    const url = new URL(finalized.url).pathname;
    expect((await server.fetch(url, { headers: { accept: chrome } })).headers.get('content-type')).toBe(mediaType[smallest]);
    for (const accept of ['*/*', 'image/*', '', 'image/avif;q=0,image/webp;q=0']) {
      const response = await server.fetch(url, { headers: accept ? { accept } : {} });
      expect({ accept, type: response.headers.get('content-type') }).toEqual({ accept, type: 'image/jpeg' });
    }
    const head = await server.fetch(url, { method: 'HEAD', headers: { accept: chrome } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(sizes[smallest]));
    expect(head.headers.get('content-type')).toBe(mediaType[smallest]);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const etag = head.headers.get('etag')!;
    const cached = await server.fetch(url, { headers: { accept: chrome, 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    expect(cached.headers.get('etag')).toBe(etag);
    expect(cached.headers.get('vary')).toBe('Accept');
    // Another encoding has another ETag (caches keep the variants apart).
    const jpegTag = (await server.fetch(url, { headers: { accept: '*/*' } })).headers.get('etag');
    if (smallest === 'jpeg') expect(jpegTag).toBe(etag);
    else expect(jpegTag).not.toBe(etag);
  }, 30_000);

  test('unknown ids and widths are 404 (GET and HEAD), never the client page', async () => {
    const finalized = await sendOk(team.owner, team.project.id, await photoLike(400, 300, { format: 'png', seed: 5 }), 400, 300);
    for (const path of [contentImagePath('nosuchimage0000000000', 400), contentImagePath(finalized.id, 401), contentImagePath(finalized.id, 320).replace('320', '0320'), `/content-images/${finalized.id}/x`, `/content-images/${finalized.id}`, `/content-images/%00/1`, `/content-images/${finalized.id}/400/extra`]) {
      for (const method of ['GET', 'HEAD']) {
        const response = await server.fetch(path, { method });
        expect({ path, method, status: response.status, type: response.headers.get('content-type') }).toMatchObject({ path, method, status: 404 });
        expect(response.headers.get('content-type') ?? '').not.toContain('text/html');
      }
    }
    expect(await (await server.fetch(contentImagePath('nosuchimage0000000000', 400))).json()).toEqual({ code: 'not_found', message: 'content image not found' });
    // An upload not finalized yet has no sizes.
    const pending = await createOk(team.owner, team.project.id, new Uint8Array(10), 10, 10);
    expect((await server.fetch(contentImagePath(pending.id, 10))).status).toBe(404);
  });

  test('a JPEG with EXIF orientation 6 is turned upright (width and height swapped); GPS and camera data are gone from every stored file', async () => {
    const jpeg = await jpegWithExif(600, 400, 6);
    expect(exifTags((await sharp(jpeg).metadata()).exif)?.gps).toContain(2); // GPSLatitude is in the upload
    const finalized = await sendOk(team.developer, team.project.id, jpeg, 400, 600);
    expect(finalized).toMatchObject({ width: 400, height: 600 });
    const row = (await rowOf(finalized.id))!;
    expect(row.widths).toEqual([320, 400]);
    const keys: string[] = [];
    for await (const item of server.deps.storage.list(`content-images/${finalized.id}/`)) keys.push(item.key);
    expect(keys.sort()).toEqual([`content-images/${finalized.id}/original`, ...['320', '400'].flatMap((w) => contentImageFormats.map((f) => `content-images/${finalized.id}/${w}.${f}`))].sort());
    for (const key of keys) {
      const bytes = await server.deps.storage.read(key);
      const metadata = await sharp(bytes).metadata();
      expect({ key, exif: metadata.exif, orientation: metadata.orientation ?? 1 }).toEqual({ key, exif: undefined, orientation: 1 });
      expect(Buffer.from(bytes).includes('TestCam')).toBe(false);
      expect(metadata.width! < metadata.height!).toBe(true);
    }
    const served = new Uint8Array(await (await server.fetch(new URL(finalized.url).pathname)).arrayBuffer());
    expect(await sharp(served).metadata()).toMatchObject({ width: 400, height: 600 });
    // Upright: the picture's top-left corner (the gradient's dark end, turned) is where the eye expects it.
    const original = await sharp(jpeg).autoOrient().resize(40, 60).raw().toBuffer();
    const stored = await sharp(served).resize(40, 60).removeAlpha().raw().toBuffer();
    let difference = 0;
    for (let i = 0; i < original.length; i++) difference += Math.abs(original[i]! - stored[i]!);
    expect(difference / original.length).toBeLessThan(12);
  }, 30_000);

  test('tRPC: contentImages.create and contentImages.finalize do the same, with the same refusals', async () => {
    const png = await photoLike(500, 250, { format: 'png', seed: 6 });
    const trpc = server.trpc(team.admin.token);
    const created = await trpc.contentImages.create.mutate({ project: team.project.id, size: png.length, width: 500, height: 250 });
    expect(created.uploadInfo.uploadUrl).toEndWith(`/api/uploads/content-images/${created.id}`);
    expect((await putPart(created.uploadInfo, 0, png)).status).toBe(200);
    const finalized = await trpc.contentImages.finalize.mutate({ project: team.project.id, image: created.id, token: created.uploadInfo.token, parts: [partOf(png)] });
    expect(finalized).toMatchObject({ id: created.id, width: 500, height: 250, scale: 100 });
    expect(finalized.url).toEndWith(contentImagePath(created.id, 500));
    expect((await server.fetch(new URL(finalized.url).pathname)).status).toBe(200);
    expect(await trpcFailureStatus(trpc.contentImages.finalize.mutate({ project: team.project.id, image: created.id, token: created.uploadInfo.token, parts: [partOf(png)] }))).toEqual({
      code: 'already_finalized',
      httpStatus: 409,
    });
    expect(await trpcFailureStatus(server.trpc(team.tester.token).contentImages.create.mutate({ project: team.project.id, size: 10, width: 10, height: 10 }))).toEqual({
      code: 'insufficient_privileges',
      httpStatus: 403,
    });
    expect(await trpcFailureStatus(trpc.contentImages.create.mutate({ project: team.project.id, size: maxContentImageBytes + 1, width: 10, height: 10 }))).toEqual({ code: 'bad_param', httpStatus: 400 });
    expect(await trpcFailureStatus(trpc.contentImages.create.mutate({ project: team.project.id, size: 10, width: 10, height: 'a\u0000b' as never }))).toEqual({ code: 'bad_param', httpStatus: 400 });
    expect((await trpcFailure(trpc.contentImages.finalize.mutate({ project: team.project.id, image: 'nosuchimage0000000000', token: created.uploadInfo.token, parts: [partOf(png)] }))).message).toBe('content image not found');
  }, 30_000);
});

describe('what the server takes', () => {
  test('PNG (16-bit, with alpha), WebP, AVIF and GIF are decoded (JPEG above); alpha is kept in AVIF and WebP, JPEG gets white', async () => {
    const base = sharp(await photoLike(360, 240, { format: 'png', seed: 9, alpha: true }));
    const inputs: [string, Uint8Array][] = [
      ['webp', new Uint8Array(await base.clone().webp().toBuffer())],
      ['avif', new Uint8Array(await base.clone().avif().toBuffer())],
      ['gif', new Uint8Array(await base.clone().gif().toBuffer())],
      ['png', new Uint8Array(await base.clone().toColourspace('rgb16').png().toBuffer())],
    ];
    for (const [format, bytes] of inputs) {
      const finalized = await sendOk(team.developer, team.project.id, bytes, 360, 240);
      const row = (await rowOf(finalized.id))!;
      expect({ format, source: row.sourceFormat, width: finalized.width, height: finalized.height }).toEqual({ format, source: format, width: 360, height: 240 });
      const jpeg = await sharp(await server.deps.storage.read(`content-images/${finalized.id}/360.jpeg`)).metadata();
      expect({ format, alpha: jpeg.hasAlpha }).toEqual({ format, alpha: false });
      const webp = await sharp(await server.deps.storage.read(`content-images/${finalized.id}/360.webp`)).metadata();
      expect({ format, depth: webp.depth }).toEqual({ format, depth: 'uchar' });
      // GIF's palette transparency may or may not survive its encoder; the others carry real alpha.
      if (format !== 'gif') expect({ format, alpha: webp.hasAlpha }).toEqual({ format, alpha: true });
    }
  }, 30_000);
});

describe('refusals', () => {
  test('bytes that are not an image: bad_param with a sentence, the image errored and its part deleted', async () => {
    for (const [name, bytes] of [
      ['text', new TextEncoder().encode('hello, this is not a picture at all')],
      ['svg', new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>')],
      ['truncated PNG', (await photoLike(200, 100, { format: 'png' })).subarray(0, 300)],
      ['html', new TextEncoder().encode('<!doctype html><script>alert(1)</script>')],
    ] as const) {
      const { created, response } = await send(team.developer, team.project.id, bytes, 10, 10);
      const body = await expectError(response, 400, 'bad_param');
      expect({ name, message: body.message }).toMatchObject({ name, message: expect.stringMatching(/not an image this server takes|could not be decoded/) });
      expect((await rowOf(created.id))!.status).toBe('errored');
      expect(await server.deps.storage.stat(contentImagePartKey(created.id, 0))).toBeUndefined();
      // Every later call says the same.
      const again = await finalize(team.project.id, created.id, { token: created.uploadInfo.token, parts: [partOf(bytes)] });
      expect((await expectError(again, 400, 'bad_param')).message).toStartWith(body.message.replace(/\.$/, ''));
      expect((await putPart(created.uploadInfo, 0, bytes)).status).toBe(400);
    }
  });

  test('a decompression bomb (a 103-byte PNG declaring 30000×30000) is refused from its header, before decoding', async () => {
    const bomb = pngBomb(30_000, 30_000);
    expect(bomb.length).toBeLessThan(200);
    const started = performance.now();
    const { response } = await send(team.developer, team.project.id, bomb, 100, 100);
    expect((await expectError(response, 400, 'bad_param')).message).toBe('The image has too many pixels: 30000×30000, at most 40,000,000 pixels and 16384 per side');
    expect(performance.now() - started).toBeLessThan(3000);
    // Within the side limit but over the pixel count, too.
    const wide = await send(team.developer, team.project.id, pngBomb(16_000, 16_000), 100, 100);
    await expectError(wide.response, 400, 'bad_param', /too many pixels: 16000×16000/);
    // Declared that large, it is refused before anything is sent.
    await expectError(await create(team.developer, team.project.id, { size: 100, width: 16_384, height: 16_384 }), 400, 'bad_param', /too many pixels/);
  });

  test('too large: a declared size over the limit, and a body longer than declared', async () => {
    await expectError(await create(team.developer, team.project.id, { size: maxContentImageBytes + 1, width: 10, height: 10 }), 400, 'bad_param', 'Invalid `size`');
    await expectError(await create(team.developer, team.project.id, { size: 10, width: 16_385, height: 1 }), 400, 'bad_param', 'Invalid `width`');
    const png = await photoLike(64, 64, { format: 'png' });
    const created = await createOk(team.developer, team.project.id, png.subarray(0, 100), 64, 64);
    await expectError(await putPart(created.uploadInfo, 0, png), 400, 'bad_param', /more than 100 bytes/);
    expect(await server.deps.storage.stat(contentImagePartKey(created.id, 0))).toBeUndefined();
  });

  test('a wrong hash (part or finalize), a wrong token, another part than 0: refused and nothing changed', async () => {
    const png = await photoLike(120, 80, { format: 'png' });
    const created = await createOk(team.developer, team.project.id, png, 120, 80);
    await expectError(await putPart(created.uploadInfo, 0, png, 'a'.repeat(40)), 400, 'bad_param', 'Invalid `hash`');
    expect(await server.deps.storage.stat(contentImagePartKey(created.id, 0))).toBeUndefined();
    await expectError(await putPart(created.uploadInfo, 0, png, sha1Hex(png), 'cu_wrong'), 401, 'wrong_auth', 'Invalid `token`');
    await expectError(await putPart(created.uploadInfo, 1, png), 400, 'bad_param', /one part, part 0/);
    expect((await putPart(created.uploadInfo, 0, png)).status).toBe(200);
    const token = created.uploadInfo.token;
    await expectError(await finalize(team.project.id, created.id, { token, parts: [{ ...partOf(png), hash: 'b'.repeat(40) }] }), 400, 'bad_param', 'Invalid `parts`: part 0 was not uploaded with this hash and size');
    await expectError(await finalize(team.project.id, created.id, { token, parts: [{ ...partOf(png), size: png.length - 1 }] }), 400, 'bad_param', /they hold/);
    await expectError(await finalize(team.project.id, created.id, { token, parts: [{ ...partOf(png), part: 1 }] }), 400, 'bad_param', /expected part 0/);
    await expectError(await finalize(team.project.id, created.id, { token: `${token}x`, parts: [partOf(png)] }), 401, 'wrong_auth', 'Invalid `token`');
    expect((await rowOf(created.id))!.status).toBe('uploading');
    // The same image then finalizes normally, once.
    expect((await finalize(team.project.id, created.id, { token, parts: [partOf(png)] })).status).toBe(200);
    const twice = await expectError(await finalize(team.project.id, created.id, { token, parts: [partOf(png)] }), 409, 'already_finalized', 'The content image is already finalized');
    expect(twice.details).toMatchObject({ id: created.id, width: 120, height: 80 });
    await expectError(await finalize(team.project.id, created.id, { token: 'cu_other', parts: [partOf(png)] }), 401, 'wrong_auth');
    await expectError(await putPart(created.uploadInfo, 0, png), 409, 'already_finalized');
  });

  test('an expired upload token is wrong_auth', async () => {
    const png = await photoLike(50, 50, { format: 'png' });
    const created = await createOk(team.developer, team.project.id, png, 50, 50);
    await server.deps.db.update(contentImages).set({ uploadExpiresAt: new Date(Date.now() - 1000) }).where(eq(contentImages.id, created.id));
    await expectError(await putPart(created.uploadInfo, 0, png), 401, 'wrong_auth', 'The upload token expired: create the image again');
    await expectError(await finalize(team.project.id, created.id, { token: created.uploadInfo.token, parts: [partOf(png)] }), 401, 'wrong_auth', /expired/);
  });

  test("another project's image id, an unknown id: not_found, and the image is untouched", async () => {
    const other = await createProject(server, team.owner);
    const png = await photoLike(60, 40, { format: 'png' });
    const created = await createOk(team.developer, team.project.id, png, 60, 40);
    expect((await putPart(created.uploadInfo, 0, png)).status).toBe(200);
    await expectError(await finalize(other.id, created.id, { token: created.uploadInfo.token, parts: [partOf(png)] }), 404, 'not_found', 'content image not found');
    await expectError(await finalize(team.project.id, 'nosuchimage0000000000', { token: created.uploadInfo.token, parts: [partOf(png)] }), 404, 'not_found', 'content image not found');
    await expectError(await finalize('nosuchproject', created.id, { token: created.uploadInfo.token, parts: [partOf(png)] }), 404, 'not_found', 'content image not found');
    const part = await fetch(`${server.url}/api/uploads/content-images/nosuchimage0000000000?token=x&part=0&hash=${sha1Hex(png)}`, { method: 'PUT', body: png as unknown as BodyInit });
    await expectError(part, 404, 'not_found', 'content image not found');
    expect((await rowOf(created.id))!.status).toBe('uploading');
    expect((await finalize(team.project.id, created.id, { token: created.uploadInfo.token, parts: [partOf(png)] })).status).toBe(200);
  });

  test('who may create: developers, admins and the owner; testers, outsiders and visitors are refused as for editing a description', async () => {
    const body = { size: 100, width: 10, height: 10 };
    const statusOf = async (user: TestUser | undefined, projectId: string) => (await create(user, projectId, body)).status;
    expect(await statusOf(team.owner, team.project.id)).toBe(200);
    expect(await statusOf(team.admin, team.project.id)).toBe(200);
    expect(await statusOf(team.developer, team.project.id)).toBe(200);
    await expectError(await create(team.tester, team.project.id, body), 403, 'insufficient_privileges');
    await expectError(await create(team.outsider, team.project.id, body), 404, 'not_found', 'project not found');
    await expectError(await create(undefined, team.project.id, body), 404, 'not_found', 'project not found');
    const shown = await createProject(server, team.owner);
    await makePublic(server, shown, team.owner);
    await expectError(await create(team.outsider, shown.id, body), 403, 'insufficient_privileges');
    await expectError(await create(undefined, shown.id, body), 401, 'unauthorized');
    // An API token acts as its user.
    const apiToken = await createApiToken(server, team.developer);
    expect((await server.fetch(imagesOf(team.project.id), { method: 'POST', token: apiToken, json: body })).status).toBe(200);
  });

  test('wrong types, missing fields, NUL and hostile values are bad_param, never a 500', async () => {
    const bodies: unknown[] = [
      {},
      { size: '100', width: 10, height: 10 },
      { size: 100, width: 10 },
      { size: 100, width: 10, height: 10, scale: 0 },
      { size: 100, width: 10, height: 10, scale: 'a\u0000b' },
      { size: 1.5, width: 10, height: 10 },
      { size: -1, width: 10, height: 10 },
      { size: 100, width: 10, height: 10, scale: 1001 },
      [],
      'a\u0000b',
      null,
    ];
    for (const body of bodies) {
      const response = await create(team.developer, team.project.id, body);
      expect({ body, status: response.status, code: ((await response.json()) as { code: string }).code }).toEqual({ body, status: 400, code: 'bad_param' });
    }
    const created = await createOk(team.developer, team.project.id, new Uint8Array(10), 10, 10);
    const finalizeBodies: unknown[] = [
      {},
      { token: created.uploadInfo.token },
      { token: 'a\u0000b', parts: [partOf(new Uint8Array(10))] },
      { token: created.uploadInfo.token, parts: [] },
      { token: created.uploadInfo.token, parts: [partOf(new Uint8Array(10)), partOf(new Uint8Array(10))] },
      { token: created.uploadInfo.token, parts: [{ part: 0, hash: 'x', size: 10 }] },
      { token: created.uploadInfo.token, parts: 'a\u0000b' },
    ];
    for (const body of finalizeBodies) {
      const response = await finalize(team.project.id, created.id, body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
    }
    for (const query of ['', 'token=x', `token=${created.uploadInfo.token}&part=0`, `token=${created.uploadInfo.token}&part=-1&hash=${'a'.repeat(40)}`, `token=a%00b&part=0&hash=${'a'.repeat(40)}`]) {
      const response = await fetch(`${created.uploadInfo.uploadUrl}?${query}`, { method: 'PUT', body: new Uint8Array(10) as unknown as BodyInit });
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
    }
    expect((await rowOf(created.id))!.status).toBe('uploading');
  });
});
