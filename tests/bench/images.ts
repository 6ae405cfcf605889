/**
 * Content images (`bun run bench:images`). Issue 19's image processing throughput.
 *
 * One real server in this process (tests/support/server.ts: PGlite in memory, file blob storage, one
 * job worker), BENCH_IMAGES_COUNT photo-like JPEGs of BENCH_IMAGES_WIDTH×BENCH_IMAGES_HEIGHT (default 20
 * of 1920×1080; gradients, shapes, text and a little noise, like screenshots), pasted through the real
 * API (create, part 0, finalize), then:
 *
 * - optimise: POST /api/admin/maintenance/optimize-content-images as the administrator, timed from the
 *   call to the job's output on the jobs stream: images per second, against the baseline of this run,
 *   a plain `sharp(bytes).jpeg().toBuffer()` of the same images one after the other (decode + one JPEG
 *   at sharp's defaults). The job makes every width of contentImageWidths (5 for 1920: 320 … 1920) in
 *   AVIF, WebP and JPEG from the normalised original, so its ratio says what the three formats and the
 *   srcset widths cost next to the cheapest thing sharp can do with an image.
 * - finalize: the same figure for finalize (decode, orient, original, every size), as the paste flow
 *   sees it, against the same baseline.
 * - per format: one image's largest size encoded alone in each format (median of 3), and the average
 *   bytes each format gives at 1280 px (the issue's goal: a cover sent to a 1280 px screen ≤ 200 KB).
 *
 * Settings: BENCH_IMAGES_COUNT (20), BENCH_IMAGES_WIDTH (1920), BENCH_IMAGES_HEIGHT (1080). Prints
 * figures only; exits 1 when a measurement failed.
 */
import sharp, { type Sharp } from 'sharp';
import { readEvents } from '../../src/shared/api/jobs.ts';
import { contentImageWidths } from '../../src/shared/schemas/content-images.ts';
import { contentImages } from '../../src/server/db/schema/index.ts';
import { contentImageEncodings } from '../../src/server/domains/content-images/encode.ts';
import { registerUser } from '../support/accounts.ts';
import { uploadContentImage } from '../support/content-images.ts';
import { photoLike } from '../support/images.ts';
import { createProject } from '../support/projects.ts';
import { startTestServer } from '../support/server.ts';
import { formatRatio, positiveNumber, trackFailures } from './support.ts';

const count = positiveNumber('BENCH_IMAGES_COUNT', 20);
const width = positiveNumber('BENCH_IMAGES_WIDTH', 1920);
const height = positiveNumber('BENCH_IMAGES_HEIGHT', 1080);
const { fail, hasFailed } = trackFailures();

const perSecond = (images: number, ms: number) => images / (ms / 1000);
const rate = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} images/s`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

console.log(`bench:images: ${count} images of ${width}×${height}, widths ${contentImageWidths(width).join(', ')}, AVIF q${contentImageEncodings.avif.quality} effort ${contentImageEncodings.avif.effort}, WebP q${contentImageEncodings.webp.quality} effort ${contentImageEncodings.webp.effort}, mozjpeg q${contentImageEncodings.jpeg.quality}`);
const images: Uint8Array[] = [];
for (let seed = 1; seed <= count; seed++) images.push(await photoLike(width, height, { format: 'jpeg', seed }));
console.log(`bench:images: generated, ${kib(images.reduce((sum, bytes) => sum + bytes.length, 0) / count)} per image on average`);

// Baseline: the cheapest useful thing sharp does with each image.
sharp.cache(false);
await sharp(images[0]!).jpeg().toBuffer(); // warm up libvips
let started = performance.now();
for (const bytes of images) await sharp(bytes).jpeg().toBuffer();
const baseline = perSecond(count, performance.now() - started);

const server = await startTestServer({ JOB_POLL_MS: '50' });
try {
  const admin = await registerUser(server); // the instance's first user: its administrator
  const project = await createProject(server, admin);

  started = performance.now();
  for (const bytes of images) await uploadContentImage(server, admin, project.id, bytes, width, height);
  const finalize = perSecond(count, performance.now() - started);

  started = performance.now();
  const response = await server.fetch('/api/admin/maintenance/optimize-content-images', { method: 'POST', token: admin.token });
  const job = (await response.json()) as { token: string };
  let output: unknown;
  const events = await server.fetch(`/api/jobs?token=${encodeURIComponent(job.token)}`);
  for await (const { event, data } of readEvents(events.body!)) {
    const update = JSON.parse(data) as { type: string; status: string; output: unknown };
    if (event === 'job_updated' && update.type === 'output') output = update;
  }
  const optimiseMs = performance.now() - started;
  const optimise = perSecond(count, optimiseMs);
  if ((output as { status?: string } | undefined)?.status !== 'succeeded') fail(`the optimise job did not succeed: ${JSON.stringify(output)}`);

  console.log(`optimise: ${formatRatio(optimise / baseline)} plain sharp jpeg (job ${rate(optimise)}, ${(optimiseMs / 1000).toFixed(1)} s for ${count}; baseline ${rate(baseline)})`);
  console.log(`finalize: ${formatRatio(finalize / baseline)} plain sharp jpeg (paste flow ${rate(finalize)}, create + part 0 + finalize one after the other)`);

  // One image's largest size in each format alone, and the bytes each format gives at 1280 px.
  const { data, info } = await sharp(images[0]!).raw().toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels as 3 } };
  const formats = { avif: (s: Sharp) => s.avif(contentImageEncodings.avif), webp: (s: Sharp) => s.webp(contentImageEncodings.webp), jpeg: (s: Sharp) => s.jpeg(contentImageEncodings.jpeg) };
  const timings: string[] = [];
  for (const [name, encode] of Object.entries(formats)) {
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      await encode(sharp(data, raw)).toBuffer();
      runs.push(performance.now() - t);
    }
    timings.push(`${name} ${Math.round(runs.sort((a, b) => a - b)[1]!)} ms`);
  }
  console.log(`per format at ${width}×${height}: ${timings.join(', ')}`);
  const rows = await server.deps.db.select({ variants: contentImages.variants }).from(contentImages);
  const at1280 = (['avif', 'webp', 'jpeg'] as const).map((format) => {
    const sizes = rows.flatMap((row) => (row.variants['1280']?.[format] === undefined ? [] : [row.variants['1280'][format]!]));
    return `${format} ${sizes.length ? kib(sizes.reduce((a, b) => a + b, 0) / sizes.length) : 'n/a'}`;
  });
  console.log(`bytes at 1280 px (average of ${rows.length}): ${at1280.join(', ')}`);
} catch (error) {
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
} finally {
  await server.stop();
}
process.exit(hasFailed() ? 1 : 0);
