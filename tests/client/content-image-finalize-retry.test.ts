import { useDom } from './setup.ts';
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { contentImages } from '../../src/server/db/schema/content-images.ts';
import { createProject } from '../support/projects.ts';
import { registerUser } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { installImageApis } from './image-apis.ts';

/**
 * Issue 28: on a busy server a finalize answers 503 timeout while its image waits in the image
 * worker's queue (IMAGE_FINALIZE_WAIT_SECONDS), and the client asks again after spec §9's pause. When
 * the image got ready in between, that retry is 409 already_finalized with the image in details: the
 * browser takes it as the finished image instead of failing the paste.
 */
useDom();
// Spec §9's 5 s pause between tries.
setDefaultTimeout(120_000);
const { setApiOrigin, setBearerToken } = await import('../../src/client/lib/api.ts');
const { prepareContentImage, uploadContentImage } = await import('../../src/client/lib/content-images.ts');

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ IMAGE_FINALIZE_WAIT_SECONDS: '0.001' });
}, 60_000);
afterAll(() => server?.stop());

async function imageStatus(id: string): Promise<string | undefined> {
  const [row] = await server.deps.db.select({ status: contentImages.status }).from(contentImages).where(eq(contentImages.id, id));
  return row?.status;
}

async function untilReady(id: string): Promise<void> {
  while ((await imageStatus(id)) !== 'ready') await Bun.sleep(50);
}

test('a retried finalize that finds its image finished meanwhile resolves with that image', async () => {
  const owner = await registerUser(server);
  const project = await createProject(server, owner);
  setApiOrigin(server.url);
  setBearerToken(owner.token);
  const restoreImageApis = installImageApis();
  const saved = globalThis.fetch;
  const finalizeStatuses: number[] = [];
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const finalize = url.pathname.match(/\/content\/images\/([^/]+)\/finalize$/);
    if (!finalize) return saved(input, init);
    // The retry is sent only once the worker has finished the image: the case under test, on any machine.
    if (finalizeStatuses.length > 0) await untilReady(finalize[1]!);
    const response = await saved(input, init);
    finalizeStatuses.push(response.status);
    return response;
  }) as typeof fetch;
  try {
    // Any image takes longer than the 1 ms the finalize waits here.
    const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 30, g: 120, b: 200 } } }).png().toBuffer();
    const prepared = await prepareContentImage(new Blob([new Uint8Array(png)], { type: 'image/png' }));
    const image = await uploadContentImage(project.id, prepared);
    expect(finalizeStatuses).toEqual([503, 409]);
    expect(image.width).toBe(640);
    expect(await imageStatus(image.id)).toBe('ready');
  } finally {
    globalThis.fetch = saved;
    restoreImageApis();
    setBearerToken(null);
  }
});
