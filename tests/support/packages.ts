import { addFile, bytesSource, concatBytes, createTree, MODE_EXECUTABLE, packArchive, type CompressionAlgorithm } from '../../src/shared/archive/index.ts';
import type { Package, UploadInfo } from '../../src/shared/schemas/packages.ts';
import { and, eq } from 'drizzle-orm';
import { storedChunks } from '../../src/server/db/schema/index.ts';
import { readPackageIndex } from '../../src/server/domains/packages/records/package-content.ts';
import { findJob } from '../../src/server/jobs/queue.ts';
import type { TestUser } from './accounts.ts';
import type { TestServer } from './server.ts';

export type PackageFiles = Record<string, Uint8Array | string>;
export type UploadOptions = {
  tags?: string[];
  entrypoint?: string[] | null;
  title?: string;
  basePackage?: string;
  compression?: CompressionAlgorithm;
  /** Paths packed with the executable mode bit. */
  executables?: string[];
};

/** Packs files into an archive (a patch against basePackage's stored index when given). */
export async function packFiles(server: TestServer, files: PackageFiles, options: { basePackage?: string; compression?: CompressionAlgorithm; executables?: string[] } = {}): Promise<Uint8Array> {
  const tree = createTree();
  for (const [path, content] of Object.entries(files)) {
    const mode = options.executables?.includes(path) ? MODE_EXECUTABLE : 0;
    addFile(tree, path, bytesSource(typeof content === 'string' ? new TextEncoder().encode(content) : content), { mode });
  }
  const base = options.basePackage ? await readPackageIndex(server.deps, options.basePackage) : undefined;
  const packed = packArchive(tree, { compression: options.compression ?? 0, base });
  const bytes = concatBytes(await Array.fromAsync(packed.stream as unknown as AsyncIterable<Uint8Array>));
  await packed.done;
  return bytes;
}

export function sha1Hex(bytes: Uint8Array): string {
  return new Bun.CryptoHasher('sha1').update(bytes).digest('hex');
}

export function splitParts(bytes: Uint8Array, partSize: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += partSize) parts.push(bytes.subarray(offset, offset + partSize));
  return parts;
}

export async function createPackageRecord(server: Pick<TestServer, 'fetch'>, user: TestUser, projectId: string, body: Record<string, unknown>): Promise<{ id: string; uploadInfo: UploadInfo }> {
  const response = await server.fetch(`/api/projects/${projectId}/packages`, { method: 'POST', token: user.token, json: body });
  if (response.status !== 200) throw new Error(`create package: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string; uploadInfo: UploadInfo };
}

/** PUT one part to the upload URL (no bearer: the token is in the query). */
export function putPart(uploadInfo: UploadInfo, part: number, bytes: Uint8Array, hash = sha1Hex(bytes), token = uploadInfo.token): Promise<Response> {
  const url = `${uploadInfo.uploadUrl}?token=${encodeURIComponent(token)}&part=${part}&hash=${hash}`;
  return fetch(url, { method: 'PUT', body: bytes as unknown as BodyInit, headers: { 'content-type': 'application/octet-stream' } });
}

export async function waitForJob(server: TestServer, jobId: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await findJob(server.deps.db, jobId);
    if (job && (job.status === 'succeeded' || job.status === 'errored')) return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not finish: ${job?.status} ${job?.error}`);
    server.deps.jobSignal.notify();
    await Bun.sleep(50);
  }
}

/**
 * Any archive bytes through the real API: create the record, upload the parts, finalize. The finalize
 * reply is returned as it came (archives the server must refuse are tested with it).
 */
export async function sendArchive(server: Pick<TestServer, 'fetch' | 'url'>, user: TestUser, projectId: string, archive: Uint8Array, options: UploadOptions = {}): Promise<{ id: string; finalize: Response }> {
  const created = await createPackageRecord(server, user, projectId, {
    size: archive.length,
    title: options.title,
    tags: options.tags ?? [],
    entrypoint: options.entrypoint ?? null,
    basePackage: options.basePackage ?? null,
  });
  const parts = splitParts(archive, created.uploadInfo.partSize);
  // PUBLIC_URL may name an address only a proxy answers; the test reaches the server directly.
  const uploadUrl = new URL(new URL(created.uploadInfo.uploadUrl).pathname, server.url).toString();
  const descriptors = await Promise.all(
    parts.map(async (bytes, part) => {
      const response = await putPart({ ...created.uploadInfo, uploadUrl }, part, bytes);
      if (response.status !== 200) throw new Error(`part ${part}: ${response.status} ${await response.text()}`);
      return response.json();
    }),
  );
  const finalize = await server.fetch(`/api/projects/${projectId}/packages/${created.id}/finalize`, {
    method: 'PUT',
    token: user.token,
    json: { token: created.uploadInfo.token, parts: descriptors },
  });
  return { id: created.id, finalize };
}

/**
 * A ready package through the real API: pack (a patch when basePackage is given), create, upload the
 * parts, finalize, and resolve a patch (waiting for its job). Returns the package JSON.
 */
export async function uploadPackage(server: TestServer, user: TestUser, projectId: string, files: PackageFiles, options: UploadOptions = {}): Promise<Package> {
  const archive = await packFiles(server, files, options);
  const { id, finalize } = await sendArchive(server, user, projectId, archive, options);
  if (finalize.status !== 200) throw new Error(`finalize: ${finalize.status} ${await finalize.text()}`);
  if (!options.basePackage) return (await finalize.json()) as Package;
  const resolve = await server.fetch(`/api/projects/${projectId}/packages/${id}/resolve`, { method: 'POST', token: user.token });
  if (resolve.status !== 200) throw new Error(`resolve: ${resolve.status} ${await resolve.text()}`);
  const { job } = (await resolve.json()) as { job: string };
  const done = await waitForJob(server, job);
  if (done.status !== 'succeeded') throw new Error(`resolve job: ${done.error}`);
  const response = await server.fetch(`/api/projects/${projectId}/packages/${id}`, { token: user.token });
  return (await response.json()) as Package;
}

/** Where the store keeps a chunk: its stored_chunks row (pack, offset), undefined when it has none. */
export async function storedChunkRow(server: Pick<TestServer, 'deps'>, compression: CompressionAlgorithm, hash: string, compressedSize: number) {
  const [row] = await server.deps.db
    .select()
    .from(storedChunks)
    .where(and(eq(storedChunks.compression, compression), eq(storedChunks.hash, hash), eq(storedChunks.compressedSize, compressedSize)));
  return row;
}

/** Every key under `prefix` in the server's blob store. */
export async function keysUnder(server: Pick<TestServer, 'deps'>, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const item of server.deps.storage.list(prefix)) keys.push(item.key);
  return keys;
}
