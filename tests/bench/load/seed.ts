import { addFile, bytesSource, concatBytes, createTree, packArchive } from '../../../src/shared/archive/index.ts';
import { createRng } from '../archive/random.ts';

/**
 * The instance the load runs against, made through the public HTTP API only (the processes are children,
 * this process never opens their database): accounts, each with a browser session (its bearer token and
 * cookie) and an API token, each owning one public project whose store page is published (public branch
 * 'main', version 1.0 holding one small web package, a description) and one private project the load's
 * uploads go to (so the project pages and store pages the load reads keep their size).
 */
export type SeededAccount = {
  name: string;
  /** The registration's session token (what the web client sends as a bearer). */
  sessionToken: string;
  /** The same session as the browser's cookie (name=value). */
  cookie: string;
  /** An API token (what the CLI sends). */
  apiToken: string;
  projectId: string;
  branchId: string;
  versionId: string;
  packageId: string;
  /** The private project uploads go to. */
  uploadProjectId: string;
};

type Fetcher = { url: string };

async function call<T>(server: Fetcher, method: string, path: string, options: { token?: string; json?: unknown } = {}): Promise<{ body: T; response: Response }> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(new URL(path, server.url), { method, headers, body: options.json !== undefined ? JSON.stringify(options.json) : undefined });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return { body: (text ? JSON.parse(text) : undefined) as T, response };
}

export type SmallArchive = { bytes: Uint8Array; sha1: string };

/** A small web game (an index.html, a script and `dataBytes` of incompressible data), packed as the CLI would without compression. */
export async function packSmallGame(seed: number, dataBytes: number): Promise<SmallArchive> {
  const tree = createTree();
  const text = (value: string) => bytesSource(new TextEncoder().encode(value));
  addFile(tree, 'index.html', text(`<!doctype html><title>Game ${seed}</title><canvas id="c"></canvas><script src="game.js"></script>`));
  addFile(tree, 'game.js', text(`// game ${seed}\n${'const tick = (t) => requestAnimationFrame(tick);\n'.repeat(40)}`));
  const data = new Uint8Array(dataBytes);
  createRng(seed).fill(data);
  addFile(tree, 'assets/data.bin', bytesSource(data));
  const packed = packArchive(tree, { chunking: 1, compression: 0 });
  const bytes = concatBytes(await Array.fromAsync(packed.stream as unknown as AsyncIterable<Uint8Array>));
  await packed.done;
  return { bytes, sha1: new Bun.CryptoHasher('sha1').update(bytes).digest('hex') };
}

/** Create, one part, finalize: the package's id (the archive must fit in one part). */
async function uploadSmallPackage(server: Fetcher, token: string, projectId: string, archive: SmallArchive, title: string): Promise<string> {
  const { body: created } = await call<{ id: string; uploadInfo: { token: string; uploadUrl: string; partSize: number } }>(server, 'POST', `/api/projects/${projectId}/packages`, {
    token,
    json: { size: archive.bytes.length, title, tags: ['os:web'], entrypoint: ['index.html'] },
  });
  if (archive.bytes.length > created.uploadInfo.partSize) throw new Error(`the archive (${archive.bytes.length} bytes) needs more than one part`);
  const partUrl = new URL(new URL(created.uploadInfo.uploadUrl).pathname, server.url);
  partUrl.searchParams.set('token', created.uploadInfo.token);
  partUrl.searchParams.set('part', '0');
  partUrl.searchParams.set('hash', archive.sha1);
  const part = await fetch(partUrl, { method: 'PUT', body: archive.bytes as Uint8Array<ArrayBuffer>, headers: { 'content-type': 'application/octet-stream' } });
  const descriptor = await part.text();
  if (part.status !== 200) throw new Error(`part 0: ${part.status} ${descriptor.slice(0, 300)}`);
  await call(server, 'PUT', `/api/projects/${projectId}/packages/${created.id}/finalize`, { token, json: { token: created.uploadInfo.token, parts: [JSON.parse(descriptor)] } });
  return created.id;
}

/** One account with its published public project (see SeededAccount). */
async function seedAccount(server: Fetcher, index: number, archive: SmallArchive): Promise<SeededAccount> {
  const name = `load${index}${Math.random().toString(36).slice(2, 6)}`;
  const { body: session, response } = await call<{ authToken: string }>(server, 'POST', '/api/auth/password', {
    json: { name, password: `pw-${name}-secret-words`, intent: 'register' },
  });
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  if (!cookie.includes('=')) throw new Error('the registration set no session cookie');
  const sessionToken = session.authToken;
  const { body: apiToken } = await call<{ token: string }>(server, 'POST', '/api/users/me/sessions', { token: sessionToken, json: {} });
  const title = `Load Game ${String(index + 1).padStart(2, '0')}`;
  const { body: project } = await call<{ id: string }>(server, 'POST', '/api/projects', { token: sessionToken, json: { title } });
  const base = `/api/projects/${project.id}`;
  await call(server, 'PATCH', base, { token: sessionToken, json: { isPublic: true } });
  const markdown = `# ${title}\n\nA small game made for the load benchmark. ${'Explore, build and trade. '.repeat(20)}\n\n- Fast\n- Small\n- Deterministic`;
  await call(server, 'PUT', `${base}/description`, { token: sessionToken, json: { markdown, lang: 'en', images: [] } });
  const packageId = await uploadSmallPackage(server, apiToken.token, project.id, archive, 'Web build');
  const { body: branch } = await call<{ id: string }>(server, 'POST', `${base}/branches`, { token: sessionToken, json: { title: 'main' } });
  await call(server, 'PATCH', `${base}/branches/${branch.id}`, { token: sessionToken, json: { isPublic: true } });
  const { body: version } = await call<{ id: string }>(server, 'POST', `${base}/versions`, {
    token: sessionToken,
    json: { title: '1.0', description: 'First release.', packages: [packageId] },
  });
  await call(server, 'POST', `${base}/branches/${branch.id}/versions/${version.id}`, { token: sessionToken });
  const { body: uploads } = await call<{ id: string }>(server, 'POST', '/api/projects', { token: sessionToken, json: { title: `Load Uploads ${index + 1}` } });
  return { name, sessionToken, cookie, apiToken: apiToken.token, projectId: project.id, branchId: branch.id, versionId: version.id, packageId, uploadProjectId: uploads.id };
}

/** `count` accounts, 4 at a time; each project's package differs (its own data bytes). */
export async function seedInstance(server: Fetcher, count: number, packageDataBytes: number): Promise<SeededAccount[]> {
  const accounts: SeededAccount[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      accounts[index] = await seedAccount(server, index, await packSmallGame(index + 1, packageDataBytes));
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, count) }, worker));
  return accounts;
}
