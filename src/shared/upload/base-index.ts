import { decodeIndex, readArchive, type ArchiveIndex } from '../archive/index.ts';
import type { ApiClient, CallOptions } from '../api/client.ts';
import { routes } from '../api/routes.ts';

const MAGIC = [0x43, 0x52, 0x54, 0x31];

/**
 * The index of the package an update is packed against (a patch sends only the chunks it lacks):
 * GET .../download?filter=index, then the signed URL it answers. An archive in its place is tolerated
 * (its index is read from the front).
 */
export async function fetchBaseIndex(api: ApiClient, project: string, packageId: string, options: CallOptions = {}): Promise<ArchiveIndex> {
  const { url } = await api.call(routes.packageDownloads.url, { params: { project, package: packageId }, query: { filter: 'index' }, ...options });
  const response = await api.fetchFile(url, options);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (MAGIC.every((byte, i) => bytes[i] === byte)) {
    const read = await readArchive(new Blob([bytes]).stream());
    await read.cancel();
    return read.index;
  }
  return decodeIndex(bytes);
}
