import { afterAll, beforeAll, expect, test } from 'bun:test';
import { addFile, bytesSource, createTree, type ArchiveTree } from '../../src/shared/archive/index.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import type { PackageDraft } from '../../src/client/upload/package-draft.ts';
import type { PackageUploadState } from '../../src/shared/upload/statuses.ts';
import type { UploadRecord as ResumeState } from '../../src/shared/upload/record.ts';
import { createUploadQueue, type UploadEvent } from '../../src/client/upload/upload-queue.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createProject } from '../support/projects.ts';
import { startTestProxy, type TestProxy } from '../support/http-proxy.ts';
import { noise } from '../support/noise.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const PART_SIZE = 64 * 1024;
let server: TestServer;
let proxy: TestProxy;
let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  proxy = startTestProxy();
  // Upload URLs name the proxy, so part PUTs pass through it like every other call.
  server = await startTestServer({ UPLOAD_PART_SIZE: String(PART_SIZE), PUBLIC_URL: proxy.url });
  proxy.target = server.url;
  owner = await registerUser(server);
  projectId = (await createProject(server, owner)).id;
});

afterAll(async () => {
  proxy.stop();
  await server.stop();
});

function draftOf(files: Record<string, Uint8Array>, basePackage: string | null = null): PackageDraft {
  const tree: ArchiveTree = createTree();
  for (const [path, bytes] of Object.entries(files)) addFile(tree, path, bytesSource(bytes));
  tree.entrypoint = [Object.keys(files)[0]!];
  return { tree, tags: ['os:web'], title: null, basePackage };
}

/** Runs one upload through the queue against the proxy, recording every state and resume event. */
async function upload(draft: PackageDraft, resume: ResumeState | null = null) {
  const states: PackageUploadState[] = [];
  const events: UploadEvent[] = [];
  const queue = createUploadQueue({
    api: { origin: proxy.url, token: owner.token },
    retryDelayMs: 20,
    resolvePollMs: 50,
    onEvent: (event) => {
      events.push(event);
      if (event.type === 'state') states.push(event.state);
    },
  });
  const final = await queue.add('one', { project: projectId, draft, resume });
  return { final, states, events, statuses: [...new Set(states.map((state) => state.status))] };
}

async function getPackage(id: string): Promise<Package> {
  const response = await server.fetch(`/api/projects/${projectId}/packages/${id}`, { token: owner.token });
  return (await response.json()) as Package;
}

const game = { 'index.html': noise(5_000, 1), 'data/level.bin': noise(300_000, 2) };

test('a package goes queued → packing → creating → splitting → uploading → finalizing → done', async () => {
  proxy.partRequests = 0;
  const { final, statuses } = await upload(draftOf(game));
  expect(final.status).toBe('done');
  expect(statuses).toEqual(['queued', 'packing', 'creating', 'splitting', 'uploading', 'finalizing', 'done']);
  expect(final.progress).toBe(1);
  expect(final.parts.length).toBe(Math.ceil(final.size! / PART_SIZE));
  expect(final.parts.every((status) => status === 'done')).toBe(true);
  expect(proxy.partRequests).toBe(final.parts.length);
  expect(final.sentBytes).toBe(final.size!);
  const stored = await getPackage(final.packageId!);
  expect(stored.status).toBe('ready');
  expect(stored.size).toBe(305_000);
  expect(stored.entrypoint).toEqual(['index.html']);
});

test('failed create, part and finalize requests are retried and shown as retrying', async () => {
  proxy.fail('POST', /\/packages$/, 1);
  proxy.fail('PUT', /^\/api\/uploads\//, 2);
  proxy.fail('PUT', /\/finalize$/, 1);
  const { final, statuses, states } = await upload(draftOf({ 'a.bin': noise(200_000, 3) }));
  expect(final.status).toBe('done');
  expect(statuses).toContain('create_retrying');
  expect(statuses).toContain('finalize_retrying');
  expect(states.some((state) => state.parts.includes('upload_retrying'))).toBe(true);
  expect((await getPackage(final.packageId!)).status).toBe('ready');
});

test('three failures in a row error the package with trying_few_times_failed', async () => {
  proxy.fail('POST', /\/packages$/, 3);
  const { final } = await upload(draftOf({ 'b.bin': noise(10_000, 4) }));
  expect(final.status).toBe('errored');
  expect(final.error).toBe('trying_few_times_failed');
});

test('an interrupted upload resumes with only the parts not acknowledged', async () => {
  const files = { 'big.bin': noise(600_000, 5) };
  // Parts after the first few fail for good: the run errors with some parts acknowledged.
  let resume: ResumeState | null = null;
  const queue = createUploadQueue({
    api: { origin: proxy.url, token: owner.token },
    retryDelayMs: 5,
    onEvent: (event) => {
      if (event.type === 'created') resume = event.resume;
      if (event.type === 'part' && resume) resume = { ...resume, parts: [...resume.parts, event.descriptor] };
      if (event.type === 'part' && resume && resume.parts.length === 4) proxy.fail('PUT', /^\/api\/uploads\//, 1000);
    },
  });
  const first = await queue.add('x', { project: projectId, draft: draftOf(files) });
  expect(first.status).toBe('errored');
  proxy.clear();
  const acknowledged = resume!.parts.length;
  expect(acknowledged).toBeGreaterThanOrEqual(4);
  proxy.partRequests = 0;
  const second = await upload(draftOf(files), resume);
  expect(second.final.status).toBe('done');
  expect(second.final.packageId).toBe(resume!.packageId);
  expect(second.statuses).not.toContain('creating');
  const resent = proxy.partsSent.slice(-proxy.partRequests);
  // No acknowledged part travels again; every other part does.
  expect(resent.filter((part) => resume!.parts.some((item) => item.part === part))).toEqual([]);
  expect(new Set(resent).size).toBe(second.final.parts.length - acknowledged);
  expect((await getPackage(second.final.packageId!)).status).toBe('ready');
});

test('an update uploads a patch (only the chunks the base lacks) and resolves to a ready package', async () => {
  const base = await upload(draftOf(game));
  expect(base.final.status).toBe('done');
  proxy.partBytes = 0;
  const next = { ...game, 'data/extra.bin': noise(70_000, 9) };
  const update = await upload(draftOf(next, base.final.packageId));
  expect(update.final.status).toBe('done');
  expect(update.statuses).toContain('resolving');
  expect(update.final.patchSize).toBe(70_000);
  expect(proxy.partBytes).toBe(update.final.size!);
  expect(update.final.size!).toBeLessThan(base.final.size!);
  const resolved = await getPackage(update.final.packageId!);
  expect(resolved.status).toBe('ready');
  expect(resolved.size).toBe(375_000);
});

