import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import sharp from 'sharp';
import { readEvents } from '../../src/shared/api/jobs.ts';
import type { FinalizedContentImage } from '../../src/shared/schemas/content-images.ts';
import type { JobUpdatedEvent } from '../../src/shared/schemas/jobs.ts';
import { contentImages, jobs } from '../../src/server/db/schema/index.ts';
import { contentImageOriginalKey, contentImageSizeKey } from '../../src/server/domains/content-images/content-image-keys.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { uploadContentImage } from '../support/content-images.ts';
import { photoLike } from '../support/images.ts';
import { createProject, makeTeam, type Team } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { trpcFailure } from '../support/trpc-failure.ts';

/**
 * POST /api/admin/maintenance/optimize-content-images (spec §2 'Optimize images', §7): instance
 * administrators only (to everyone else the route does not exist); the job re-encodes every ready
 * image from its normalised original, reports progress, stage and log on the jobs stream, goes on past
 * an image that fails, and runs one at a time.
 */
let server: TestServer;
let team: Team;
let images: FinalizedContentImage[] = [];
const optimizePath = '/api/admin/maintenance/optimize-content-images';

beforeAll(async () => {
  server = await startTestServer();
  // The first user of an instance is its administrator: the team's owner.
  team = await makeTeam(server);
  for (let seed = 1; seed <= 6; seed++) {
    images.push(await uploadContentImage(server, team.developer, team.project.id, await photoLike(700, 400, { format: 'png', seed }), 700, 400));
  }
}, 60_000);
afterAll(() => server?.stop());

const start = (user?: Pick<TestUser, 'token'>) => server.fetch(optimizePath, { method: 'POST', token: user?.token });

async function follow(token: string): Promise<JobUpdatedEvent[]> {
  const response = await server.fetch(`/api/jobs?token=${encodeURIComponent(token)}`, { headers: { accept: 'text/event-stream' } });
  expect(response.status).toBe(200);
  const events: JobUpdatedEvent[] = [];
  for await (const { event, data } of readEvents(response.body!)) if (event === 'job_updated') events.push(JSON.parse(data) as JobUpdatedEvent);
  return events;
}

describe('who may start it', () => {
  test('everyone but an instance administrator gets the not_found of a path that does not exist (REST and tRPC)', async () => {
    const unknownPath = await server.fetch('/api/admin/maintenance/no-such-thing', { method: 'POST', token: team.owner.token });
    const unknownBody = await unknownPath.json();
    expect(unknownPath.status).toBe(404);
    const stranger = await registerUser(server);
    for (const user of [team.admin, team.developer, stranger, undefined]) {
      const response = await start(user);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual(unknownBody);
    }
    for (const user of [team.admin, stranger]) {
      expect(await trpcFailure(server.trpc(user.token).admin.optimizeContentImages.mutate())).toMatchObject({ code: 'not_found', httpStatus: 404 });
    }
    expect(await server.deps.db.select().from(jobs).where(eq(jobs.kind, 'content_images_optimize'))).toEqual([]);
  });
});

describe('the job', () => {
  test('re-encodes every image from its original, with progress, stage and log; sizes and the database agree afterwards', async () => {
    // Damage one stored size and its recorded size: the job must rebuild both from the original.
    const damaged = images[0]!;
    await server.deps.storage.put(contentImageSizeKey(damaged.id, 320, 'jpeg'), new Uint8Array([1, 2, 3]));
    await server.deps.db.update(contentImages).set({ variants: { '320': { jpeg: 3 } } }).where(eq(contentImages.id, damaged.id));
    const before = new Map((await server.deps.db.select().from(contentImages)).map((row) => [row.id, row.encodedAt!.getTime()]));

    const response = await start(team.owner);
    expect(response.status).toBe(200);
    const started = (await response.json()) as { job: string; token: string };
    expect(started.token).toStartWith('cj_');
    const events = await follow(started.token);
    const last = events.at(-1)!;
    expect(last).toMatchObject({ type: 'output', status: 'succeeded', output: { images: images.length, failed: 0 } });
    const progress = events.flatMap((event) => (event.type === 'progress' && event.progress !== null ? [event.progress] : []));
    expect(progress.some((value) => value > 0 && value < 1)).toBe(true);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    expect(events.some((event) => event.type === 'progress' && event.stage === 're-encoding')).toBe(true);
    const log = events.flatMap((event) => ('log' in event && Array.isArray(event.log) ? event.log : []));
    expect(log).toContain(`Re-encoding ${images.length} images`);
    expect(log).toContain(`Re-encoded ${images.length} images`);

    for (const row of await server.deps.db.select().from(contentImages)) {
      expect(row.encodedAt!.getTime()).toBeGreaterThan(before.get(row.id)!);
      expect(row.widths).toEqual([320, 640, 700]);
      for (const [width, formats] of Object.entries(row.variants)) {
        for (const [format, size] of Object.entries(formats)) {
          const bytes = await server.deps.storage.read(contentImageSizeKey(row.id, Number(width), format as 'jpeg'));
          expect({ id: row.id, width, format, size: bytes.length }).toEqual({ id: row.id, width, format, size: size! });
        }
      }
    }
    const repaired = await server.fetch(`/content-images/${damaged.id}/320`, { headers: { accept: '*/*' } });
    expect(await sharp(new Uint8Array(await repaired.arrayBuffer())).metadata()).toMatchObject({ format: 'jpeg', width: 320, height: 183 });
  }, 60_000);

  test('an image that fails is logged and counted; the others are re-encoded', async () => {
    const broken = images[1]!;
    await server.deps.storage.delete(contentImageOriginalKey(broken.id));
    await server.deps.storage.put(contentImageSizeKey(broken.id, 700, 'jpeg'), new TextEncoder().encode('not a jpeg'));
    const started = (await (await start(team.owner)).json()) as { job: string; token: string };
    const last = (await follow(started.token)).at(-1)!;
    expect(last).toMatchObject({ type: 'output', status: 'succeeded', output: { images: images.length - 1, failed: 1 } });
    const [row] = await server.deps.db.select().from(jobs).where(eq(jobs.id, started.job));
    expect(row!.log.some((line) => line.startsWith(`${broken.id}: `))).toBe(true);
    expect(row!.log.at(-1)).toBe(`Re-encoded ${images.length - 1} images; 1 failed`);
  }, 60_000);

  test('an image without its original is re-encoded from its largest JPEG', async () => {
    const image = images[2]!;
    await server.deps.storage.delete(contentImageOriginalKey(image.id));
    const started = (await (await start(team.owner)).json()) as { job: string; token: string };
    const last = (await follow(started.token)).at(-1)!;
    expect(last).toMatchObject({ type: 'output', status: 'succeeded' });
    expect((last as { output: { images: number } }).output.images).toBe(images.length - 1); // images[1] still fails
    const [row] = await server.deps.db.select().from(contentImages).where(eq(contentImages.id, image.id));
    expect(row!.widths).toEqual([320, 640, 700]);
  }, 60_000);
});

describe('one at a time', () => {
  test('a second start while one is queued answers the same job and token; after it ended, a new one', async () => {
    // No workers: the job stays queued.
    const idle = await startTestServer({ JOB_WORKERS: '0' });
    try {
      const admin = await registerUser(idle);
      const project = await createProject(idle, admin);
      await uploadContentImage(idle, admin, project.id, await photoLike(100, 80, { format: 'png' }), 100, 80);
      const first = (await (await idle.fetch(optimizePath, { method: 'POST', token: admin.token })).json()) as { job: string; token: string };
      const second = (await (await idle.fetch(optimizePath, { method: 'POST', token: admin.token })).json()) as { job: string; token: string };
      const third = await idle.trpc(admin.token).admin.optimizeContentImages.mutate();
      expect(second).toEqual(first);
      expect(third).toEqual(first);
      const rows = await idle.deps.db.select().from(jobs).where(eq(jobs.kind, 'content_images_optimize'));
      expect(rows.map((row) => ({ id: row.id, status: row.status }))).toEqual([{ id: first.job, status: 'queued' }]);
      // Running counts too: one such job at a time.
      await idle.deps.db.update(jobs).set({ status: 'running' }).where(eq(jobs.id, first.job));
      expect(await (await idle.fetch(optimizePath, { method: 'POST', token: admin.token })).json()).toEqual(first);
      await idle.deps.db.update(jobs).set({ status: 'succeeded' }).where(and(eq(jobs.id, first.job)));
      const next = (await (await idle.fetch(optimizePath, { method: 'POST', token: admin.token })).json()) as { job: string };
      expect(next.job).not.toBe(first.job);
    } finally {
      await idle.stop();
    }
  }, 30_000);
});
