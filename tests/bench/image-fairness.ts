/**
 * Image fairness (`bun run bench:image-fairness`). Issue 28 item 1: while one user's large images are
 * processed, another user's password sign-in and 1 MiB package part upload must stay within 2× of
 * their baseline.
 *
 * One real server in this process (tests/support/server.ts: PGlite in memory, file blob storage) with
 * the production Argon2id cost (64 MiB, 2 passes) and 1 MiB upload parts. Bob signs in with his
 * password and PUTs one 1 MiB part of a package, one after the other:
 *
 * - baseline: BENCH_FAIRNESS_ROUNDS rounds with no image work;
 * - loaded: the same, over and over, while Alice finalizes BENCH_FAIRNESS_IMAGES photo-like JPEGs of
 *   BENCH_FAIRNESS_SIDE² pixels at once (default 3 of 5000×5000, the case; a finalize answered
 *   503 timeout, still queued, is sent again as the browser does) until all of them are ready.
 *
 * Prints the median (and the worst) of each, the ratio loaded / baseline of the medians, how long the
 * images took, and the largest resident memory of this process and of its child processes (the image
 * worker) seen meanwhile. Exits 1 when a measurement failed (a missed goal is not one).
 */
import type { UploadInfo } from '../../src/shared/schemas/packages.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { childProcesses, residentBytesOf } from '../support/child-processes.ts';
import { photoLike } from '../support/images.ts';
import { createPackageRecord, putPart, sha1Hex } from '../support/packages.ts';
import { createProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { formatRatio, positiveNumber, trackFailures } from './support.ts';

const imageCount = positiveNumber('BENCH_FAIRNESS_IMAGES', 3);
const side = positiveNumber('BENCH_FAIRNESS_SIDE', 5000);
const rounds = positiveNumber('BENCH_FAIRNESS_ROUNDS', 5);
const partBytes = 1024 * 1024;
const { fail, hasFailed } = trackFailures();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (value: number) => `${Math.round(value)} ms`;
const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/** Resident bytes of this process and, summed, of its children (the image worker when there is one). */
function residentBytes(): { self: number; children: number } {
  return { self: process.memoryUsage.rss(), children: childProcesses().reduce((sum, child) => sum + residentBytesOf(child.pid), 0) };
}

type Samples = { signIn: number[]; part: number[] };

async function round(server: TestServer, bob: TestUser, upload: UploadInfo, part: Uint8Array, samples: Samples): Promise<void> {
  let started = performance.now();
  const signIn = await server.fetch('/api/auth/password', { method: 'POST', json: { name: bob.name, password: bob.password, intent: 'login' } });
  if (signIn.status !== 200) throw new Error(`sign-in: ${signIn.status} ${await signIn.text()}`);
  await signIn.arrayBuffer();
  samples.signIn.push(performance.now() - started);
  started = performance.now();
  const put = await putPart(upload, 0, part);
  if (put.status !== 200) throw new Error(`part upload: ${put.status} ${await put.text()}`);
  await put.arrayBuffer();
  samples.part.push(performance.now() - started);
}

/** Finalize until it answers (a 503 timeout: the image is still queued, so ask again). */
async function finalizeUntilDone(server: TestServer, projectId: string, id: string, body: unknown): Promise<void> {
  for (;;) {
    const response = await server.fetch(`/api/projects/${projectId}/content/images/${id}/finalize`, { method: 'PUT', json: body });
    const text = await response.text();
    if (response.status === 200) return;
    if (response.status !== 503) throw new Error(`finalize: ${response.status} ${text}`);
  }
}

console.log(`bench:image-fairness: ${imageCount} JPEG(s) of ${side}×${side}, ${rounds} rounds of sign-in + 1 MiB part`);
const images: Uint8Array[] = [];
for (let seed = 1; seed <= imageCount; seed++) images.push(await photoLike(side, side, { format: 'jpeg', seed }));
console.log(`bench:image-fairness: generated, ${mb(images.reduce((sum, bytes) => sum + bytes.length, 0) / imageCount)} per image`);

const server = await startTestServer({ PASSWORD_HASH_MEMORY_KIB: '65536', PASSWORD_HASH_TIME_COST: '2', UPLOAD_PART_SIZE: String(partBytes) });
try {
  const alice = await registerUser(server);
  const bob = await registerUser(server);
  const aliceProject = await createProject(server, alice);
  const bobProject = await createProject(server, bob);
  const part = crypto.getRandomValues(new Uint8Array(partBytes));
  const { uploadInfo } = await createPackageRecord(server, bob, bobProject.id, { size: 8 * partBytes, tags: [] });

  await round(server, bob, uploadInfo, part, { signIn: [], part: [] }); // warm up
  const baseline: Samples = { signIn: [], part: [] };
  for (let i = 0; i < rounds; i++) await round(server, bob, uploadInfo, part, baseline);
  const idle = residentBytes();

  const prepared = [];
  for (const bytes of images) {
    const created = await server.fetch(`/api/projects/${aliceProject.id}/content/images`, { method: 'POST', token: alice.token, json: { size: bytes.length, width: side, height: side } });
    if (created.status !== 200) throw new Error(`create image: ${created.status} ${await created.text()}`);
    const { id, uploadInfo: imageUpload } = (await created.json()) as { id: string; uploadInfo: UploadInfo };
    const sent = await putPart(imageUpload, 0, bytes);
    if (sent.status !== 200) throw new Error(`image part: ${sent.status} ${await sent.text()}`);
    prepared.push({ id, body: { token: imageUpload.token, parts: [{ part: 0, hash: sha1Hex(bytes), size: bytes.length }] } });
  }

  const loaded: Samples = { signIn: [], part: [] };
  let peak = residentBytes();
  const sampler = setInterval(() => {
    const now = residentBytes();
    peak = { self: Math.max(peak.self, now.self), children: Math.max(peak.children, now.children) };
  }, 200);
  const imagesStarted = performance.now();
  let finished = false;
  const finalizing = Promise.all(prepared.map((image) => finalizeUntilDone(server, aliceProject.id, image.id, image.body))).finally(() => (finished = true));
  while (!finished || loaded.signIn.length < rounds) await round(server, bob, uploadInfo, part, loaded);
  await finalizing;
  const imagesMs = performance.now() - imagesStarted;
  clearInterval(sampler);

  const report = (name: string, base: number[], load: number[]) =>
    console.log(`${name}: ${formatRatio(median(load) / median(base))} baseline while images are processed (median ${ms(median(load))}, worst ${ms(Math.max(...load))}, ${load.length} samples; baseline median ${ms(median(base))}, worst ${ms(Math.max(...base))})`);
  report('sign-in', baseline.signIn, loaded.signIn);
  report('1 MiB part', baseline.part, loaded.part);
  console.log(`images: ${imageCount} finalized in ${(imagesMs / 1000).toFixed(1)} s`);
  console.log(`memory: this process ${mb(idle.self)} idle, at most ${mb(peak.self)} meanwhile; child processes ${mb(idle.children)} idle, at most ${mb(peak.children)} meanwhile`);
} catch (error) {
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
} finally {
  await server.stop();
}
process.exit(hasFailed() ? 1 : 0);
