import { randomBytes } from 'node:crypto';
import { addFile, bytesSource, concatBytes, createTree, packArchive } from '../../src/shared/archive/index.ts';
import type { FakeItchGame, FakeItchKey } from '../support/fake-itch/api.ts';
import type { TestUser } from '../support/accounts.ts';
import { sendArchive } from '../support/packages.ts';
import type { TestServer } from '../support/server.ts';

/** A well-formed itch.io API key: 40 letters and digits (spec §5). */
export function itchKey(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(40)].map((byte) => alphabet[byte % alphabet.length]).join('');
}

let nextId = 7000;

/** An account of the fake itch.io API with one game per slug (developer `developer`), unscoped (a settings key). */
export function itchAccount(developer: string, slugs: string[] = ['game'], extra: Partial<FakeItchKey> = {}): FakeItchKey {
  const games: FakeItchGame[] = slugs.map((slug) => ({
    id: ++nextId,
    title: `Game ${slug}`,
    url: `https://${developer}.itch.io/${slug}`,
    cover_url: `https://img.itch.zone/${slug}.png`,
  }));
  return { user: { id: ++nextId, username: developer }, games, ...extra };
}

/**
 * Every reply body the tests read, so a final assertion can check no deploy key ever came back (and the
 * server's log lines, collected by the logger given to the test server).
 */
export function replyRecorder(server: TestServer) {
  const replies: string[] = [];
  return {
    replies,
    async call(path: string, init: RequestInit & { token?: string; json?: unknown } = {}): Promise<{ status: number; body: any; text: string }> {
      const response = await server.fetch(path, init);
      const text = await response.text();
      replies.push(text);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      return { status: response.status, body, text };
    },
    /** A tRPC call's result or its failure, recorded the same way. */
    async trpc<T>(call: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; code: string; httpStatus: number; message: string }> {
      try {
        const value = await call;
        replies.push(JSON.stringify(value));
        return { ok: true, value };
      } catch (error) {
        const data = (error as { data?: { code: string; httpStatus: number } }).data;
        const message = (error as Error).message;
        replies.push(JSON.stringify({ data, message }));
        if (!data) throw error;
        return { ok: false, code: data.code, httpStatus: data.httpStatus, message };
      }
    },
  };
}

type Fetcher = { fetch(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response> };

/** A 200 answer's JSON, else an error naming what was asked and the answer. */
export async function okJsonOf<T>(response: Response, what: string): Promise<T> {
  if (response.status !== 200) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** A one-file package archive (game.txt). */
async function oneFileArchive(): Promise<Uint8Array> {
  const tree = createTree();
  addFile(tree, 'game.txt', bytesSource(new TextEncoder().encode('the game')));
  const packed = packArchive(tree, { compression: 0 });
  return concatBytes(await Array.fromAsync(packed.stream as unknown as AsyncIterable<Uint8Array>));
}

/**
 * Through the real API of a server started apart (a child process or a cluster node): a new user with a
 * project, an itch key on the fake itch API, a deploy site `developer/game`, a one-file package (sent by
 * `upload`, which answers its id), a version of it, and a deploy of it to the site's default channel.
 */
export async function startOneDeploy(
  server: Fetcher,
  itch: { setKey(key: string, account: FakeItchKey): void },
  upload: (token: string, projectId: string, archive: Uint8Array) => Promise<string>,
  developer: string,
): Promise<{ token: string; jobId: string; jobToken: string }> {
  const name = `deploy${Math.random().toString(36).slice(2, 8)}`;
  const session = await okJsonOf<{ authToken: string }>(
    await server.fetch('/api/auth/password', { method: 'POST', json: { name, password: `pw-${name}-secret`, intent: 'register' } }),
    'register',
  );
  const token = session.authToken;
  const project = await okJsonOf<{ id: string }>(await server.fetch('/api/projects', { method: 'POST', token, json: { title: 'Deploy' } }), 'project');
  const key = itchKey();
  itch.setKey(key, itchAccount(developer, ['game']));
  const credential = await okJsonOf<{ id: string }>(await server.fetch('/api/users/me/deploy-credentials', { method: 'POST', token, json: { provider: 'itch', key } }), 'credential');
  const site = await okJsonOf<{ id: string }>(
    await server.fetch(`/api/projects/${project.id}/deploy-sites`, { method: 'POST', token, json: { credential: credential.id, site: `${developer}/game` } }),
    'site',
  );
  const packageId = await upload(token, project.id, await oneFileArchive());
  const version = await okJsonOf<{ id: string }>(
    await server.fetch(`/api/projects/${project.id}/versions`, { method: 'POST', token, json: { title: '3.0', description: '', packages: [packageId] } }),
    'version',
  );
  const started = await okJsonOf<{ jobs: { job: string; token: string }[] }>(
    await server.fetch(`/api/projects/${project.id}/versions/${version.id}/deploy`, { method: 'POST', token, json: { site: site.id, packages: [{ package: packageId, channel: 'default' }] } }),
    'deploy',
  );
  return { token, jobId: started.jobs[0]!.job, jobToken: started.jobs[0]!.token };
}

/** startOneDeploy's upload for a server started apart: sendArchive, its finalize answering 200. */
export function sendArchiveTo(server: Pick<TestServer, 'fetch' | 'url'>) {
  return async (token: string, projectId: string, archive: Uint8Array): Promise<string> => {
    const sent = await sendArchive(server, { token } as TestUser, projectId, archive);
    if (sent.finalize.status !== 200) throw new Error(`finalize: ${sent.finalize.status} ${await sent.finalize.text()}`);
    return sent.id;
  };
}

/** Polls probe until it answers a value; past the deadline fails with what was awaited and the server's log end. */
export async function untilAnswered<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, log: () => string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${log().slice(-3000)}`);
    await Bun.sleep(50);
  }
}
