import { uploadContentImage } from '../support/content-images.ts';
import { photoLike } from '../support/images.ts';
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { startFakeItchApi, type FakeItchApi } from '../support/fake-itch/api.ts';
import { itchAccount, itchKey } from './deploys-support.ts';
import { uploadPackage } from '../support/packages.ts';
import { createProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Every REST operation of the OpenAPI document, fed a corpus of hostile input (wrong types, missing
 * fields, NUL and control characters, huge strings, deep nesting, ids of nothing or of paths, hostile
 * query values) as the project's owner: each answer is a catalogued error or a success, never a 500,
 * and the server stays healthy. A route added later is swept without touching this file.
 */
let server: TestServer;
let itch: FakeItchApi;
let owner: TestUser;
const ids: Record<string, string> = {};

/** refusals: per status the codes the document says the operation answers (none listed: hand-written, not checked). */
type Operation = { method: string; path: string; query: string[]; hasBody: boolean; refusals: Map<number, string[]> };
let operations: Operation[] = [];

beforeAll(async () => {
  // A deploy credential and site exist, so their routes are swept with real ids too (itch on loopback).
  const key = itchKey();
  itch = startFakeItchApi({ keys: { [key]: itchAccount('sweeper') } });
  server = await startTestServer({ ITCH_API_URL: itch.url });
  owner = await registerUser(server);
  const project = await createProject(server, owner);
  ids.project = project.id;
  const call = async (method: string, path: string, json?: unknown) => (await server.fetch(path, { method, token: owner.token, json })).json();
  ids.branch = (await call('POST', `/api/projects/${project.id}/branches`, { title: 'main' })).id;
  ids.package = (await uploadPackage(server, owner, project.id, { 'index.html': '<p>hi</p>' }, { tags: ['os:web'] })).id;
  ids.version = (await call('POST', `/api/projects/${project.id}/versions`, { title: '1.0', packages: [ids.package] })).id;
  ids.invite = (await call('POST', `/api/projects/${project.id}/invites`, {})).id;
  ids.session = (await call('GET', '/api/users/me/sessions'))[0].id;
  ids.lang = 'en';
  ids.page = 'index';
  // A download file's kind and name, so a hostile package id reaches the file routes' lookup.
  ids.kind = 'zip';
  ids.filename = 'x.zip';
  ids.credential = (await call('POST', '/api/users/me/deploy-credentials', { provider: 'itch', key, title: 'sweep' })).id;
  ids.site = (await call('POST', `/api/projects/${project.id}/deploy-sites`, { credential: ids.credential, site: 'sweeper/game' })).id;
  // A finalized content image, so its finalize and media routes get the hostile input with a real id.
  ids.image = (await uploadContentImage(server, owner, project.id, await photoLike(64, 48), 64, 48)).id;
  const document = (await (await server.fetch('/api/openapi.json')).json()) as { paths: Record<string, Record<string, { parameters?: { in: string; name: string }[]; requestBody?: unknown; responses?: Record<string, ResponseObject> }>> };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      query: (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
      hasBody: operation.requestBody !== undefined,
      refusals: refusalsOf(operation.responses ?? {}),
    })),
  );
}, 60_000);
afterAll(async () => {
  await server.stop();
  await itch.stop();
});

const NUL = 'a\u0000b';
const fieldNames = ['title', 'name', 'password', 'markdown', 'description', 'user', 'role', 'tags', 'entrypoint', 'basePackage', 'packages', 'token', 'parts', 'size', 'expires', 'seats', 'approved', 'isPublic', 'retention', 'tokens', 'images', 'lang', 'intent'];
const everyField = (value: unknown) => Object.fromEntries(fieldNames.map((name) => [name, value]));
const deep = (depth: number): unknown => (depth === 0 ? 'x' : { title: deep(depth - 1) });

const bodies: [string, unknown][] = [
  ['empty object', {}],
  ['array', []],
  ['string', 'text'],
  ['number', 12],
  ['null', null],
  ['NUL in every field', everyField(NUL)],
  ['escape sequences in every field', everyField('\u001b[31m\u0007\u202e')],
  ['numbers in every field', everyField(-1)],
  ['huge numbers in every field', everyField(Number.MAX_VALUE)],
  ['objects in every field', everyField({ nested: true })],
  ['arrays of NUL in every field', everyField([NUL, NUL])],
  ['a 200 KB string in every field', everyField('x'.repeat(200_000 / fieldNames.length))],
  ['nested 60 deep', deep(60)],
  ['prototype keys', JSON.parse('{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"x":1}},"title":"proto"}')],
];

const hostileIds = ['a%00b', 'x'.repeat(300), '..%2F..%2Fetc%2Fpasswd', '%E2%80%AE', '1e309', '%20'];
const hostileQuery = ['', NUL, 'x'.repeat(5000), '-1', '1e309', '[]', '{"$ne":null}'];

type ResponseObject = { content?: { 'application/json'?: { schema?: { properties?: { code?: { enum?: string[] } } } } } };
function refusalsOf(responses: Record<string, ResponseObject>): Map<number, string[]> {
  const refusals = new Map<number, string[]>();
  for (const [status, response] of Object.entries(responses)) {
    const codes = response.content?.['application/json']?.schema?.properties?.code?.enum;
    if (Number(status) >= 400 && codes) refusals.set(Number(status), codes);
  }
  return refusals;
}

function pathWith(path: string, replace: (name: string) => string): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => replace(name));
}

/** Never a 500; a refusal is one the OpenAPI document lists for the operation (its binding's errors). */
async function expectNoServerError(operation: Operation, path: string, init: RequestInit & { json?: unknown; token?: string } = {}): Promise<void> {
  const { method } = operation;
  const response = await server.fetch(path, { method, token: owner.token, ...init, signal: AbortSignal.timeout(10_000) });
  const body = await response.text();
  // The failing call itself in the message, not just the number.
  expect(response.status < 500 ? 'answered' : `${method} ${path.slice(0, 200)} → ${response.status} ${body.slice(0, 300)}`).toBe('answered');
  // 414/431: the HTTP server refused the request line itself, before any operation saw it.
  if (response.status < 400 || response.status === 414 || response.status === 431 || operation.refusals.size === 0) return;
  let code: string | undefined;
  try {
    code = (JSON.parse(body) as { code?: string }).code;
  } catch {
    code = `a body that is not JSON (${JSON.stringify(body.slice(0, 80))})`;
  }
  const listed = operation.refusals.get(response.status)?.includes(code ?? '') ?? false;
  expect(listed ? 'listed' : `${method} ${operation.path} answered ${response.status} ${code}, not among its documented refusals`).toBe('listed');
}

test('no operation answers 500 to hostile bodies', async () => {
  const withBodies = operations.filter((operation) => operation.hasBody && operation.method !== 'DELETE');
  expect(withBodies.length).toBeGreaterThan(10);
  for (const operation of withBodies) {
    const path = pathWith(operation.path, (name) => ids[name] ?? 'unknown');
    for (const [, json] of bodies) await expectNoServerError(operation, path, { json });
  }
}, 60_000);

test('no operation answers 500 to hostile ids in its path', async () => {
  const withIds = operations.filter((operation) => operation.path.includes('{'));
  expect(withIds.length).toBeGreaterThan(30);
  for (const operation of withIds) {
    for (const id of hostileIds) {
      const path = pathWith(operation.path, () => id);
      await expectNoServerError(operation, path, operation.hasBody ? { json: { title: 'x' } } : {});
    }
  }
}, 60_000);

test('no operation answers 500 to a hostile id in one segment of its path, the others real', async () => {
  const withIds = operations.filter((operation) => operation.path.includes('{'));
  for (const operation of withIds) {
    const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
    for (const target of names) {
      for (const id of hostileIds) {
        const path = pathWith(operation.path, (name) => (name === target ? id : (ids[name] ?? 'unknown')));
        await expectNoServerError(operation, path, operation.hasBody ? { json: { title: 'x' } } : {});
      }
    }
  }
}, 60_000);

test('no operation answers 500 to hostile query values', async () => {
  const withQuery = operations.filter((operation) => operation.query.length > 0 && operation.path !== '/api/jobs');
  expect(withQuery.length).toBeGreaterThan(3);
  for (const operation of withQuery) {
    const path = pathWith(operation.path, (name) => ids[name] ?? 'unknown');
    for (const value of hostileQuery) {
      const query = operation.query.map((name) => `${name}=${encodeURIComponent(value)}`).join('&');
      await expectNoServerError(operation, `${path}?${query}`);
      await expectNoServerError(operation, `${path}?${operation.query.map((name) => `${name}=a&${name}=b`).join('&')}`);
    }
  }
}, 60_000);

test('signed out, with an unknown token and as a stranger to the project: every refusal is one the document lists', async () => {
  const stranger = await registerUser(server);
  const callers: (string | undefined)[] = [undefined, 'cs_not_a_token_of_this_server', stranger.token];
  const swept = operations.filter((operation) => operation.refusals.size > 0 && operation.method !== 'DELETE');
  expect(swept.length).toBeGreaterThan(40);
  for (const token of callers) {
    for (const operation of swept) {
      const path = pathWith(operation.path, (name) => ids[name] ?? 'unknown');
      await expectNoServerError(operation, path, { token, ...(operation.hasBody ? { json: { title: 'x' } } : {}) });
    }
  }
}, 60_000);

test('the deploy records of the sweep were real (their routes were swept with existing ids)', () => {
  expect(ids.credential).toMatch(/^[A-Za-z0-9_-]+$/);
  expect(ids.site).toMatch(/^[A-Za-z0-9_-]+$/);
  expect(ids.image).toMatch(/^[A-Za-z0-9_-]+$/);
});

test('after the sweep the server is healthy and the owner still owns the project', async () => {
  expect((await server.fetch('/health')).status).toBe(200);
  const project = await (await server.fetch(`/api/projects/${ids.project}`, { token: owner.token })).json();
  expect(project.id).toBe(ids.project);
  const me = await (await server.fetch('/api/users/me', { token: owner.token })).json();
  expect(me.isAdmin).toBe(true);
});
