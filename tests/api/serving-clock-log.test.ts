/**
 * The serving clock's log line (issue 29): a brand-new instance said "serving after a gap" on its very
 * first start. The line is only for an instance that served before and then had no process serving.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { instanceFacts } from '../../src/server/db/schema/index.ts';
import type { Logger } from '../../src/server/logger.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const gapLine = 'serving after a gap';
const lines: string[] = [];
const waiters: Array<{ prefix: string; resolve: () => void }> = [];
const log: Logger = {
  info: (message) => {
    lines.push(message);
    for (const waiter of waiters.filter((w) => message.startsWith(w.prefix))) waiter.resolve();
  },
  error: (message) => void lines.push(message),
  debug: () => {},
};
const nextLine = (prefix: string) => new Promise<void>((resolve) => waiters.push({ prefix, resolve }));

let server: TestServer;

beforeAll(async () => {
  // Short timings: a beat every 250 ms, a gap is a pause of over 1 s.
  server = await startTestServer({ CLOUD_PLAY_MACHINE_TIMEOUT_SECONDS: '1.5', CLOUD_PLAY_HEARTBEAT_SECONDS: '0.5', JOB_WORKERS: '0' }, { log });
}, 60_000);
afterAll(() => server.stop());

async function aliveAt(): Promise<Date | null> {
  const [row] = await server.deps.db.select({ aliveAt: instanceFacts.aliveAt }).from(instanceFacts).where(eq(instanceFacts.id, 1));
  return row?.aliveAt ?? null;
}

describe('the serving clock log', () => {
  test('a first start records serving without a "serving after a gap" line', async () => {
    // Polls the state itself; the test's own timeout bounds it (no wall-clock guess of how long a start takes).
    while ((await aliveAt()) === null) await Bun.sleep(20);
    expect(await aliveAt()).not.toBeNull();
    const [row] = await server.deps.db.select({ servingSince: instanceFacts.servingSince }).from(instanceFacts).where(eq(instanceFacts.id, 1));
    expect(row?.servingSince).not.toBeNull();
    expect(lines.filter((line) => line.startsWith(gapLine))).toEqual([]);
  });

  test('after an earlier serving period and a gap, the line is logged once', async () => {
    const logged = nextLine(gapLine);
    await server.deps.db.update(instanceFacts).set({ aliveAt: sql`now() - interval '1 hour'` }).where(eq(instanceFacts.id, 1));
    await logged;
    expect(lines.filter((line) => line.startsWith(gapLine))).toHaveLength(1);
  });
});
