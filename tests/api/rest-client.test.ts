import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ApiError, createApiClient, routes, TriedFewTimesError, uploadRetry, type AnyRoute } from '../../src/shared/api/index.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { findFreePort } from '../support/free-port.ts';
import { startTestProxy, type TestProxy } from '../support/http-proxy.ts';
import { packFiles, splitParts } from '../support/packages.ts';
import { createProject, type TestProject } from '../support/projects.ts';
import { noise } from '../support/noise.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * The one REST client (src/shared/api): the route table against the server's own OpenAPI document,
 * typed calls with auth, path parameters, queries and bodies, the error of spec §8 for every kind of
 * failure, the retry policy the caller injects, abort, raw bodies, stream replies and signed files.
 * Real server in process; the test proxy in front fails chosen requests with a non-JSON 503.
 */
const PART_SIZE = 1024;
let server: TestServer;
let proxy: TestProxy;
let owner: TestUser;
let project: TestProject;

beforeAll(async () => {
  server = await startTestServer({ UPLOAD_PART_SIZE: String(PART_SIZE) });
  proxy = startTestProxy(server.url.replace(/\/+$/, ''));
  owner = await registerUser(server);
  project = await createProject(server, owner);
});

afterAll(async () => {
  proxy.stop();
  await server.stop();
});

const signedIn = (options: Partial<Parameters<typeof createApiClient>[0]> = {}) => createApiClient({ baseUrl: server.url, auth: () => owner.token, ...options });
const throughProxy = (options: Partial<Parameters<typeof createApiClient>[0]> = {}) => createApiClient({ baseUrl: proxy.url, auth: () => owner.token, ...options });

function tableRoutes(node: unknown, name = 'routes'): { name: string; route: AnyRoute }[] {
  if (node && typeof node === 'object' && 'method' in node && 'path' in node) return [{ name, route: node as AnyRoute }];
  return Object.entries(node as Record<string, unknown>).flatMap(([key, value]) => tableRoutes(value, `${name}.${key}`));
}

describe('the route table', () => {
  test('every route is one the server serves (its OpenAPI document)', async () => {
    const document = (await (await server.fetch('/api/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    const missing = tableRoutes(routes).filter(({ route }) => {
      const path = `/api${route.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`;
      return !document.paths[path]?.[route.method.toLowerCase()];
    });
    // The sitemap is served but left out of the document.
    expect(missing.map(({ name, route }) => `${name}: ${route.method} ${route.path}`)).toEqual(['routes.store.sitemap: GET /store/sitemap.xml']);
    const sitemap = await createApiClient({ baseUrl: server.url }).call(routes.store.sitemap);
    expect(sitemap.headers.get('content-type')).toContain('application/xml');
    expect(await sitemap.text()).toContain('<urlset');
  });
});

describe('typed calls', () => {
  test('the bearer, path parameters, queries and JSON bodies reach the server; replies come back parsed', async () => {
    const api = signedIn();
    expect(await api.call(routes.users.me)).toMatchObject({ id: owner.id });
    expect(await api.call(routes.projects.get, { params: { project: project.id } })).toMatchObject({ id: project.id, title: project.title, userIsOwner: true });
    const branch = await api.call(routes.projects.branches.create, { params: { project: project.id }, body: { title: 'main' } });
    expect(branch.title).toBe('main');
    expect(await api.call(routes.projects.versions.history, { params: { project: project.id, branch: branch.id }, query: { count: 5 } })).toEqual([]);
    const refused = await api.call(routes.projects.versions.history, { params: { project: project.id, branch: branch.id }, query: { count: 1000 } }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'bad_param', status: 400 });
    // A parameter is one path segment, whatever it holds.
    const odd = await api.call(routes.projects.get, { params: { project: 'a b/c' } }).catch((error: unknown) => error);
    expect(odd).toBeInstanceOf(ApiError);
    expect((odd as ApiError).request).toBe('GET /api/projects/a%20b%2Fc');
  });

  test('a visitor sends no bearer; the session reply shows it', async () => {
    const visitor = createApiClient({ baseUrl: server.url });
    expect(await visitor.call(routes.auth.session)).toMatchObject({ userInfo: null, authToken: null });
    expect((await signedIn().call(routes.auth.session)).userInfo).toMatchObject({ id: owner.id });
  });
});

describe('errors (spec §8)', () => {
  test("a refusal carries the body's code, message and details with the HTTP status", async () => {
    const visitor = createApiClient({ baseUrl: server.url });
    const unauthorized = await visitor.call(routes.users.me).catch((error: unknown) => error);
    expect(unauthorized).toBeInstanceOf(ApiError);
    expect((unauthorized as ApiError).status).toBe(401);
    expect((unauthorized as ApiError).retryable).toBe(false);

    const invite = await signedIn().call(routes.projects.invites.create, { params: { project: project.id }, body: { seats: 1 } });
    const [first, second] = [await registerUser(server), await registerUser(server)];
    await createApiClient({ baseUrl: server.url, auth: () => first.token }).call(routes.projects.invites.join, { query: { token: invite.token } });
    const full = await createApiClient({ baseUrl: server.url, auth: () => second.token })
      .call(routes.projects.invites.join, { query: { token: invite.token } })
      .catch((error: unknown) => error);
    expect(full).toMatchObject({ code: 'not_found', status: 404, message: 'This invite has no seats left', details: { reason: 'used_up' } });
    expect((full as ApiError).body).toEqual({ code: 'not_found', message: 'This invite has no seats left', details: { reason: 'used_up' } });

    const invalid = await signedIn().call(routes.projects.create, { body: { title: '' } }).catch((error: unknown) => error);
    expect(invalid).toMatchObject({ code: 'bad_param', status: 400 });
  });

  test('a failure whose body is not the error body is http_<status>', async () => {
    proxy.fail('GET', /\/api\/users\/me$/, 1);
    const failure = await throughProxy().call(routes.users.me).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'http_503', status: 503, body: 'flaky', retryable: true });
    expect(failure).not.toBeInstanceOf(TriedFewTimesError);
  });

  test('no answer at all is network (status 0); a cancelled call is request_aborted, Request aborted', async () => {
    const down = createApiClient({ baseUrl: `http://127.0.0.1:${await findFreePort()}` });
    const network = await down.call(routes.users.me).catch((error: unknown) => error);
    expect(network).toMatchObject({ code: 'network', status: 0, retryable: true });

    const controller = new AbortController();
    controller.abort();
    const aborted = await signedIn().call(routes.users.me, { signal: controller.signal }).catch((error: unknown) => error);
    expect(aborted).toMatchObject({ code: 'request_aborted', message: 'Request aborted', status: 0 });

    // The client's own signal (the command line's Ctrl-C) stops a call waiting for its next try.
    const clientController = new AbortController();
    proxy.fail('GET', /\/api\/users\/me$/, 5);
    const waiting = throughProxy({ retry: uploadRetry, signal: clientController.signal }).call(routes.users.me).catch((error: unknown) => error);
    setTimeout(() => clientController.abort(new Error('interrupted')), 50);
    const started = performance.now();
    expect(await waiting).toMatchObject({ code: 'request_aborted' });
    expect(performance.now() - started).toBeLessThan(2000);
    proxy.clear();
  });
});

describe('retry policy (injected by the caller)', () => {
  test('spec §9: 3 tries 5000 ms apart; a retry that succeeds resolves, the hooks hear each step', async () => {
    const pauses: number[] = [];
    const heard: string[] = [];
    const api = throughProxy({ retry: { ...uploadRetry, sleep: async (ms) => void pauses.push(ms), onRetry: (failedTry, error) => heard.push(`retry ${failedTry} ${error.code}`) } });
    proxy.fail('GET', /\/api\/users\/me$/, 2);
    const me = await api.call(routes.users.me, { retry: { onTry: (attempt) => heard.push(`try ${attempt}`) } });
    expect(me.id).toBe(owner.id);
    expect(pauses).toEqual([5000, 5000]);
    // Both the client's hook (a log) and the call's (a status) hear the retries.
    expect(heard).toEqual(['retry 1 http_503', 'try 2', 'retry 2 http_503', 'try 3']);
  });

  test('three failures are trying_few_times_failed with the last one; a refusal and a no-retry call are tried once', async () => {
    const api = throughProxy({ retry: { ...uploadRetry, sleep: async () => {} } });
    proxy.fail('GET', /\/api\/users\/me$/, 3);
    const failed = await api.call(routes.users.me).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(TriedFewTimesError);
    expect(failed).toMatchObject({ code: 'trying_few_times_failed', tries: 3, last: { code: 'http_503', status: 503 } });
    expect((failed as ApiError).message).toBe('failed 3 times: GET /api/users/me: HTTP 503 Service Unavailable');

    let retries = 0;
    const counting = createApiClient({ baseUrl: proxy.url, retry: { ...uploadRetry, sleep: async () => {}, onRetry: () => (retries += 1) } });
    expect(await counting.call(routes.users.me).catch((error: unknown) => error)).toMatchObject({ status: 401 });
    proxy.fail('GET', /\/api\/users\/me$/, 1);
    expect(await counting.call(routes.users.me, { retry: false }).catch((error: unknown) => error)).toMatchObject({ code: 'http_503' });
    expect(retries).toBe(0);
    proxy.clear();
  });
});

describe('raw bodies, stream replies, signed files', () => {
  test('a package: parts PUT as bytes to the uploadUrl, finalized, its .torrent streamed and its archive fetched from the signed URL', async () => {
    const api = signedIn({ retry: uploadRetry });
    const archive = await packFiles(server, { 'game.bin': noise(5000, 41), 'readme.txt': 'hello' });
    const created = await api.call(routes.packages.create, { params: { project: project.id }, body: { size: archive.length, tags: ['os:linux'] } });
    expect(created.uploadInfo).toMatchObject({ partSize: PART_SIZE, partHashAlgorithm: 'sha1' });
    const parts = [];
    for (const [part, bytes] of splitParts(archive, PART_SIZE).entries()) {
      const hash = new Bun.CryptoHasher('sha1').update(bytes).digest('hex');
      parts.push(await api.call(routes.packages.uploadPart, { url: created.uploadInfo.uploadUrl, query: { token: created.uploadInfo.token, part, hash }, body: new Blob([bytes as Uint8Array<ArrayBuffer>]) }));
    }
    expect(parts.map((item) => item.size).reduce((sum, size) => sum + size, 0)).toBe(archive.length);
    const finalized = await api.call(routes.packages.finalize, { params: { project: project.id, package: created.id }, body: { token: created.uploadInfo.token, parts } });
    expect(finalized).toMatchObject({ id: created.id, status: 'ready', size: 5005 });

    const torrent = await api.call(routes.packageDownloads.torrent, { params: { project: project.id, package: created.id } });
    expect(torrent).toBeInstanceOf(Response);
    expect(torrent.headers.get('content-type')).toBe('application/x-bittorrent');
    expect((await torrent.arrayBuffer()).byteLength).toBeGreaterThan(0);

    const { url } = await api.call(routes.packageDownloads.url, { params: { project: project.id, package: created.id } });
    const file = await api.fetchFile(url);
    expect(Bun.hash(await file.arrayBuffer())).toBe(Bun.hash(archive));
    const expired = await api.fetchFile(url.replace(/\/files\/([^/]+)\/([^/]+)\/\d+\//, '/files/$1/$2/1/')).catch((error: unknown) => error);
    expect(expired).toBeInstanceOf(ApiError);
    expect((expired as ApiError).status).toBeGreaterThanOrEqual(400);
  });
});
