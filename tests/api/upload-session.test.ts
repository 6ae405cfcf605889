import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { addFile, bytesSource, createTree, packArchive, type ArchiveIndex } from '../../src/shared/archive/index.ts';
import { ApiError, createApiClient, routes, uploadRetry, type ApiClient } from '../../src/shared/api/index.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import {
  blobPartSource,
  fetchBaseIndex,
  rangeParts,
  runUploadSession,
  splitStream,
  type PackageUploadState,
  type PreparedArchive,
  type UploadOutcome,
  type UploadPersistence,
  type UploadRecord,
  type UploadSessionOptions,
} from '../../src/shared/upload/index.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { startTestProxy, type TestProxy } from '../support/http-proxy.ts';
import { noise } from '../support/noise.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * The one upload session (src/shared/upload/session.ts) that the browser's worker and the command line
 * both run, against a real server behind the counting test proxy: statuses, persistence for resume,
 * resume after an interruption, a record gone or finalized meanwhile, an expired token, a patch
 * resolved through its job's events, cancel (discard or keep), retries shown as *_retrying.
 */
const PART_SIZE = 64 * 1024;
let server: TestServer;
let proxy: TestProxy;
let owner: TestUser;
let project: TestProject;
let api: ApiClient;

beforeAll(async () => {
  proxy = startTestProxy();
  // Upload URLs name the proxy, so part PUTs pass through it like every other call.
  server = await startTestServer({ UPLOAD_PART_SIZE: String(PART_SIZE), PUBLIC_URL: proxy.url });
  proxy.target = server.url.replace(/\/+$/, '');
  owner = await registerUser(server);
  project = await createProject(server, owner);
  api = createApiClient({ baseUrl: proxy.url, auth: () => owner.token, retry: { ...uploadRetry, delayMs: 10 } });
});

afterAll(async () => {
  proxy.stop();
  await server.stop();
});

type Files = Record<string, Uint8Array>;

function treeOf(files: Files) {
  const tree = createTree();
  for (const [path, bytes] of Object.entries(files)) addFile(tree, path, bytesSource(bytes));
  tree.entrypoint = [Object.keys(files)[0]!];
  return tree;
}

/** The command line's way: the archive packed beforehand, its parts read by range (acknowledged ones skipped). */
async function packedOnDisk(files: Files, base?: ArchiveIndex): Promise<PreparedArchive & { bytes: Uint8Array }> {
  const packed = packArchive(treeOf(files), { chunking: 1, compression: 0, base });
  const bytes = new Uint8Array(await new Response(packed.stream).arrayBuffer());
  const { patchSize } = await packed.done;
  const source = blobPartSource(new Blob([bytes]));
  return { bytes, size: bytes.length, patchSize, parts: (partSize, acknowledged) => rangeParts(source, partSize, acknowledged) };
}

/** The browser's way: packed again for the parts, cut from the stream as it is made. */
function packedAsStream(prepared: PreparedArchive & { bytes: Uint8Array }): PreparedArchive {
  return { size: prepared.size, patchSize: prepared.patchSize, parts: (partSize) => splitStream(new Blob([prepared.bytes as Uint8Array<ArrayBuffer>]).stream(), partSize) };
}

/** A persistence that keeps the record in memory, as localStorage or the push-state file would. */
function memoryPersistence() {
  const kept: { record: UploadRecord | null; saves: number; parts: number; forgotten: number } = { record: null, saves: 0, parts: 0, forgotten: 0 };
  const persistence: UploadPersistence = {
    save: (record) => {
      kept.saves += 1;
      kept.record = structuredClone(record);
    },
    savePart: (_descriptor, record) => {
      kept.parts += 1;
      kept.record = structuredClone(record);
    },
    forget: () => {
      kept.forgotten += 1;
      kept.record = null;
    },
  };
  return { kept, persistence };
}

type Run = { outcome?: UploadOutcome; error?: unknown; states: PackageUploadState[]; statuses: string[]; notices: string[] };

async function run(prepared: PreparedArchive, options: Partial<UploadSessionOptions> = {}): Promise<Run> {
  const states: PackageUploadState[] = [];
  const notices: string[] = [];
  let outcome: UploadOutcome | undefined;
  let error: unknown;
  try {
    outcome = await runUploadSession({
      api,
      project: project.id,
      package: { title: null, tags: ['os:linux'], entrypoint: null, basePackage: null },
      prepare: async () => prepared,
      onState: (state) => states.push(state),
      onNotice: (message) => notices.push(message),
      ...options,
    });
  } catch (caught) {
    error = caught;
  }
  return { outcome, error, states, statuses: [...new Set(states.map((state) => state.status))], notices };
}

async function getPackage(id: string): Promise<Response> {
  return server.fetch(`/api/projects/${project.id}/packages/${id}`, { token: owner.token });
}

const game: Files = { 'game.x86_64': noise(300_000, 51), 'data/level.bin': noise(150_000, 52) };

describe('upload session', () => {
  let first: { record: UploadRecord; bytes: Uint8Array; packageId: string };

  test('a package goes queued → packing → creating → splitting → uploading → finalizing → done; the record is saved as it goes', async () => {
    const prepared = await packedOnDisk(game);
    const { kept, persistence } = memoryPersistence();
    proxy.reset();
    const result = await run(prepared, { persistence });
    expect(result.error).toBeUndefined();
    expect(result.statuses).toEqual(['queued', 'packing', 'creating', 'splitting', 'uploading', 'finalizing', 'done']);
    const totalParts = Math.ceil(prepared.size / PART_SIZE);
    expect(result.outcome).toMatchObject({ sentBytes: prepared.size, sentParts: totalParts, totalParts, resumed: false });
    expect(result.outcome!.state).toMatchObject({ status: 'done', progress: 1, size: prepared.size, sentBytes: prepared.size });
    expect(result.outcome!.state.parts).toEqual(Array(totalParts).fill('done'));
    expect(proxy.partRequests).toBe(totalParts);
    // Saved once made and once finalized; every part saved before it counted.
    expect(kept.saves).toBe(2);
    expect(kept.parts).toBe(totalParts);
    expect(kept.record).toMatchObject({ packageId: result.outcome!.packageId, size: prepared.size, finalized: { status: 'ready' } });
    expect(kept.record!.parts).toHaveLength(totalParts);
    expect(await (await getPackage(result.outcome!.packageId)).json()).toMatchObject({ status: 'ready', size: 450_000, entrypoint: null, tags: ['os:linux'] });
    first = { record: kept.record!, bytes: prepared.bytes, packageId: result.outcome!.packageId };
  });

  test('an interrupted upload resumes with only the parts not acknowledged, from a file or from a stream', async () => {
    for (const way of ['file', 'stream'] as const) {
      const prepared = await packedOnDisk({ 'big.bin': noise(600_000, way === 'file' ? 53 : 54) });
      const { kept, persistence } = memoryPersistence();
      // Parts after the first few fail for good: the run errors with some parts acknowledged.
      const interrupted = await run(way === 'file' ? prepared : packedAsStream(prepared), {
        persistence,
        onPart: (_descriptor, progress) => {
          if (progress.acknowledgedParts === 3) proxy.fail('PUT', /^\/api\/uploads\//, 1000);
        },
      });
      // Let the parts the failure cut off reach the proxy (and be refused) before it forgets its rules.
      await Bun.sleep(200);
      proxy.clear();
      expect(interrupted.error).toBeInstanceOf(ApiError);
      expect(interrupted.states.at(-1)).toMatchObject({ status: 'errored', error: 'trying_few_times_failed' });
      const acknowledged = kept.record!.parts.length;
      expect(acknowledged).toBeGreaterThanOrEqual(3);

      proxy.reset();
      const resumed = await run(way === 'file' ? prepared : packedAsStream(prepared), { persistence, resume: kept.record });
      expect(resumed.error).toBeUndefined();
      expect(resumed.statuses).not.toContain('creating');
      const totalParts = Math.ceil(prepared.size / PART_SIZE);
      expect(resumed.outcome).toMatchObject({ resumed: true, packageId: kept.record!.packageId, sentParts: totalParts - acknowledged, totalParts });
      // No acknowledged part travels again; every other part does.
      const missing = Array.from({ length: totalParts }, (_, part) => part).filter((part) => !kept.record!.parts.slice(0, acknowledged).some((item) => item.part === part));
      expect([...new Set(proxy.partsSent)].sort((a, b) => a - b)).toEqual(missing);
      expect(resumed.outcome!.state.progress).toBe(1);
      expect(await (await getPackage(kept.record!.packageId)).json()).toMatchObject({ status: 'ready' });
    }
  });

  test('a record finalized before the interruption could save it is not uploaded again', async () => {
    const { finalized: _, ...unrecorded } = first.record;
    proxy.reset();
    const result = await run(await packedOnDisk(game), { resume: unrecorded });
    expect(result.outcome).toMatchObject({ resumed: true, packageId: first.packageId, sentParts: 0 });
    expect(result.statuses).not.toContain('splitting');
    expect(result.statuses).not.toContain('finalizing');
    expect(proxy.partRequests).toBe(0);
  });

  test('a record the server no longer has is forgotten and a new one made', async () => {
    const prepared = await packedOnDisk({ 'gone.bin': noise(100_000, 55) });
    const { kept, persistence } = memoryPersistence();
    const created = await api.call(routes.packages.create, { params: { project: project.id }, body: { size: prepared.size } });
    await api.call(routes.packages.delete, { params: { project: project.id, package: created.id } });
    const stale: UploadRecord = { packageId: created.id, uploadInfo: created.uploadInfo, size: prepared.size, parts: [] };
    const result = await run(prepared, { persistence, resume: stale });
    expect(result.outcome).toMatchObject({ resumed: false });
    expect(result.outcome!.packageId).not.toBe(created.id);
    expect(result.statuses).toContain('creating');
    expect(kept.forgotten).toBe(1);
    expect(kept.record!.packageId).toBe(result.outcome!.packageId);
  });

  test('a resumed record whose token the server refuses starts over once, and says so', async () => {
    const prepared = await packedOnDisk({ 'expired.bin': noise(100_000, 56) });
    const created = await api.call(routes.packages.create, { params: { project: project.id }, body: { size: prepared.size } });
    const expired: UploadRecord = { packageId: created.id, uploadInfo: { ...created.uploadInfo, token: 'cu_not-the-token' }, size: prepared.size, parts: [] };
    const result = await run(prepared, { resume: expired });
    expect(result.error).toBeUndefined();
    expect(result.notices).toEqual(['the earlier upload expired on the server; starting over']);
    expect(result.outcome).toMatchObject({ resumed: false });
    expect(result.outcome!.packageId).not.toBe(created.id);
    expect(await (await getPackage(result.outcome!.packageId)).json()).toMatchObject({ status: 'ready' });
  });

  test('an update sends only the chunks its base lacks and resolves into a ready package through its job events', async () => {
    const base = await fetchBaseIndex(api, project.id, first.packageId);
    const changed: Files = { ...game, 'data/extra.bin': noise(70_000, 57) };
    const prepared = await packedOnDisk(changed, base);
    expect(prepared.patchSize).toBe(70_000);
    proxy.reset();
    const result = await run(prepared, {
      package: { title: null, tags: ['os:linux'], entrypoint: null, basePackage: first.packageId },
      jobs: { events: true, pollMs: 50 },
    });
    expect(result.error).toBeUndefined();
    expect(result.statuses).toEqual(['queued', 'packing', 'creating', 'splitting', 'uploading', 'finalizing', 'resolving', 'done']);
    expect(proxy.partBytes).toBe(prepared.size);
    expect(prepared.size).toBeLessThan(first.bytes.length);
    const resolved = (await (await getPackage(result.outcome!.packageId)).json()) as Package;
    expect(resolved).toMatchObject({ status: 'ready', size: 520_000 });
  });

  test('failed create and finalize calls are retried and shown as create_retrying and finalize_retrying', async () => {
    proxy.fail('POST', /\/packages$/, 1);
    proxy.fail('PUT', /\/finalize$/, 2);
    const result = await run(await packedOnDisk({ 'retry.bin': noise(90_000, 58) }));
    expect(result.error).toBeUndefined();
    const order = result.states.map((state) => state.status).filter((status, index, all) => status !== all[index - 1]);
    expect(order).toEqual(['queued', 'packing', 'creating', 'create_retrying', 'creating', 'splitting', 'uploading', 'finalizing', 'finalize_retrying', 'finalizing', 'finalize_retrying', 'finalizing', 'done']);
  });

  test('cancelled: the browser deletes the record it made; the command line keeps it for the next run', async () => {
    for (const discardOnAbort of [true, false]) {
      const controller = new AbortController();
      const { kept, persistence } = memoryPersistence();
      proxy.partDelayMs = 50;
      const result = await run(await packedOnDisk({ 'cancel.bin': noise(600_000, discardOnAbort ? 59 : 60) }), {
        persistence,
        signal: controller.signal,
        discardOnAbort,
        onPart: () => controller.abort(new DOMException('upload cancelled', 'AbortError')),
      });
      proxy.partDelayMs = 0;
      expect(result.error).toMatchObject({ code: 'request_aborted', message: 'Request aborted' });
      const made = result.states.find((state) => state.packageId)!.packageId!;
      if (discardOnAbort) {
        expect(result.states.at(-1)).toMatchObject({ status: 'errored', error: 'request_aborted', packageId: null });
        expect(kept.record).toBeNull();
        expect((await getPackage(made)).status).toBe(404);
      } else {
        expect(result.states.at(-1)).toMatchObject({ status: 'errored', error: 'request_aborted', packageId: made });
        expect(kept.record).toMatchObject({ packageId: made });
        expect(kept.record!.parts.length).toBeGreaterThanOrEqual(1);
        expect(await (await getPackage(made)).json()).toMatchObject({ status: 'uploading' });
      }
    }
  });
});
