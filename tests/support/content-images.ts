import type { FinalizedContentImage } from '../../src/shared/schemas/content-images.ts';
import type { UploadInfo } from '../../src/shared/schemas/packages.ts';
import type { TestUser } from './accounts.ts';
import { putPart, sha1Hex } from './packages.ts';
import type { TestServer } from './server.ts';

/** The paste flow over REST (create, part 0, finalize) for image bytes the server must take. */
export async function uploadContentImage(
  server: Pick<TestServer, 'fetch'>,
  user: Pick<TestUser, 'token'>,
  projectId: string,
  bytes: Uint8Array,
  width: number,
  height: number,
  scale = 100,
): Promise<FinalizedContentImage> {
  const created = await server.fetch(`/api/projects/${projectId}/content/images`, { method: 'POST', token: user.token, json: { size: bytes.length, width, height, scale } });
  if (created.status !== 200) throw new Error(`create content image: ${created.status} ${await created.text()}`);
  const { id, uploadInfo } = (await created.json()) as { id: string; uploadInfo: UploadInfo };
  const part = await putPart(uploadInfo, 0, bytes);
  if (part.status !== 200) throw new Error(`content image part: ${part.status} ${await part.text()}`);
  const finalized = await server.fetch(`/api/projects/${projectId}/content/images/${id}/finalize`, {
    method: 'PUT',
    json: { token: uploadInfo.token, parts: [{ part: 0, hash: sha1Hex(bytes), size: bytes.length }] },
  });
  if (finalized.status !== 200) throw new Error(`finalize content image: ${finalized.status} ${await finalized.text()}`);
  return (await finalized.json()) as FinalizedContentImage;
}
