import { randomBytes } from 'node:crypto';
import type { FakeItchGame, FakeItchKey } from '../support/fake-itch/api.ts';
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
