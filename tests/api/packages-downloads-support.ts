import { addFile, addSymlink, bytesSource, concatBytes, createTree, packArchive, type CompressionAlgorithm } from '../../src/shared/archive/index.ts';
import type { Package } from '../../src/shared/schemas/packages.ts';
import type { TestUser } from '../support/accounts.ts';
import { makePublic, type TestProject } from '../support/projects.ts';
import { createPackageRecord, putPart, splitParts } from '../support/packages.ts';
import type { TestServer } from '../support/server.ts';

/** Files with modes and symlinks (the shared uploadPackage factory takes plain files). */
export type TreeSpec = { files: Record<string, { content: Uint8Array | string; executable?: boolean }>; symlinks?: Record<string, string> };

async function packTree(spec: TreeSpec, compression: CompressionAlgorithm = 0): Promise<Uint8Array> {
  const tree = createTree();
  for (const [path, file] of Object.entries(spec.files)) {
    const bytes = typeof file.content === 'string' ? new TextEncoder().encode(file.content) : file.content;
    addFile(tree, path, bytesSource(bytes), { mode: file.executable ? 1 : 0 });
  }
  for (const [path, target] of Object.entries(spec.symlinks ?? {})) addSymlink(tree, path, target);
  const packed = packArchive(tree, { compression });
  const bytes = concatBytes(await Array.fromAsync(packed.stream as unknown as AsyncIterable<Uint8Array>));
  await packed.done;
  return bytes;
}

/** Uploads a tree through the real API (create, parts, finalize). */
export async function uploadTree(server: TestServer, user: TestUser, projectId: string, spec: TreeSpec, options: { title?: string; compression?: CompressionAlgorithm } = {}): Promise<{ pkg: Package; archive: Uint8Array }> {
  const archive = await packTree(spec, options.compression ?? 0);
  const created = await createPackageRecord(server, user, projectId, { size: archive.length, title: options.title, tags: [], entrypoint: null });
  const descriptors = await Promise.all(
    splitParts(archive, created.uploadInfo.partSize).map(async (bytes, part) => (await putPart(created.uploadInfo, part, bytes)).json()),
  );
  const finalize = await server.fetch(`/api/projects/${projectId}/packages/${created.id}/finalize`, {
    method: 'PUT',
    token: user.token,
    json: { token: created.uploadInfo.token, parts: descriptors },
  });
  if (finalize.status !== 200) throw new Error(`finalize: ${finalize.status} ${await finalize.text()}`);
  return { pkg: (await finalize.json()) as Package, archive };
}

async function ok(response: Response, what: string) {
  if (response.status !== 200) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Publishes the packages as a new version on a new branch; public project and branch unless told otherwise. */
export async function publishPackages(
  server: TestServer,
  owner: TestUser,
  project: TestProject,
  packageIds: string[],
  options: { publicProject?: boolean; publicBranch?: boolean; branchId?: string } = {},
): Promise<{ branchId: string; versionId: string }> {
  if (options.publicProject ?? true) await makePublic(server, project, owner);
  let branchId = options.branchId;
  if (!branchId) {
    const branch = (await ok(await server.fetch(`/api/projects/${project.id}/branches`, { method: 'POST', token: owner.token, json: { title: `b${Math.random().toString(36).slice(2, 7)}` } }), 'branch')) as { id: string };
    branchId = branch.id;
    if (options.publicBranch ?? true) await ok(await server.fetch(`/api/projects/${project.id}/branches/${branchId}`, { method: 'PATCH', token: owner.token, json: { isPublic: true } }), 'public branch');
  }
  const version = (await ok(
    await server.fetch(`/api/projects/${project.id}/versions`, { method: 'POST', token: owner.token, json: { title: `v${Math.random().toString(36).slice(2, 7)}`, packages: packageIds } }),
    'version',
  )) as { id: string };
  await ok(await server.fetch(`/api/projects/${project.id}/branches/${branchId}/versions/${version.id}`, { method: 'POST', token: owner.token }), 'publish');
  return { branchId, versionId: version.id };
}

export async function downloadUrl(server: TestServer, path: string, token?: string): Promise<string> {
  const body = (await ok(await server.fetch(path, { token }), `download url ${path}`)) as { url: string };
  return body.url;
}

export async function fetchBytes(url: string, init: RequestInit = {}): Promise<{ status: number; bytes: Uint8Array; headers: Headers }> {
  const response = await fetch(url, init);
  return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()), headers: response.headers };
}

export function sha256Hex(bytes: Uint8Array): string {
  return new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
}
