/**
 * A first `npm start` builds the web client from source before pages answer (issue 29): the log says
 * so before the build and tells its time after, so the wait is not a silent minute.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startChildServer, type ChildServer } from '../support/child-server.ts';

let server: ChildServer;

beforeAll(async () => {
  server = await startChildServer({ env: { LOG_LEVEL: 'info' } });
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

type LogLine = { message: string; seconds?: unknown };

function logLines(): LogLine[] {
  return server
    .readLog()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

describe('the client build at start', () => {
  test('is announced before it runs and its time logged after, once', async () => {
    // The page waits for the build: once it answers, the build's lines are written.
    const page = await server.fetch('/');
    expect(page.status).toBe(200);
    const messages = logLines().map((line) => line.message);
    const before = messages.findIndex((message) => message.startsWith('building the web client from source'));
    const after = messages.indexOf('web client built');
    expect(before).toBeGreaterThanOrEqual(0);
    expect(after).toBeGreaterThan(before);
    expect(messages.filter((message) => message === 'web client built')).toHaveLength(1);
    const seconds = logLines()[after]!.seconds;
    expect(typeof seconds).toBe('number');
    expect(seconds as number).toBeGreaterThan(0);
  });
});
