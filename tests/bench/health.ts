/**
 * `/health` under load (`bun run bench:health`): does a load balancer's check still answer at once when
 * the process is saturated?
 *
 * One server process (`bun src/server/main.ts`, production mode) on a fresh DATA_DIR: the embedded
 * database by default, or a fresh PostgreSQL database with BENCH_HEALTH_DATABASE=postgres (on
 * BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres; dropped at the end). A
 * prober in its own process (health/probe.ts) asks /health every 20 ms, first with the server idle (the
 * baseline), then while BENCH_HEALTH_CLIENTS (200) closed-loop clients hit heavy routes: registrations
 * (Argon2id at its production cost, then inserts), the session call with a token, and a tRPC batch of
 * the signed-in user's projects. A second prober asks /ready meanwhile: what it answers under load.
 *
 * Printed: /health p99 under load against idle p99 (a ratio) and in ms (goal ≤ 50 ms), p50 and max;
 * the share of /ready answers that said busy (503); the load's throughput. Settings:
 * BENCH_HEALTH_SECONDS (15), BENCH_HEALTH_CLIENTS (200). Exits 1 when a measurement failed, not on a
 * missed goal.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '../support/free-port.ts';
import { inheritedEnv, serverProcess } from '../support/server-process.ts';
import { createBenchDatabase, type BenchDatabase } from './load/servers.ts';
import { formatRatio, positiveNumber, trackFailures } from './support.ts';

const seconds = positiveNumber('BENCH_HEALTH_SECONDS', 15);
const clients = Math.round(positiveNumber('BENCH_HEALTH_CLIENTS', 200));
const onPostgres = process.env.BENCH_HEALTH_DATABASE === 'postgres';
const databaseServer = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const goalMs = 50;
const probeIntervalMs = 20;
const { fail, hasFailed } = trackFailures();

type Sample = { ms: number; status: number };

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
const ms = (value: number) => (value < 10 ? `${value.toFixed(1)} ms` : `${Math.round(value)} ms`);

function probe(url: string, path: string): Promise<Sample[]> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, 'health', 'probe.ts'), url, path, String(seconds), String(probeIntervalMs)], { stdout: 'pipe', stderr: 'inherit' });
  return new Response(child.stdout).text().then((text) => JSON.parse(text) as Sample[]);
}

async function json<T>(response: Response, what: string): Promise<T> {
  if (!response.ok) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const root = mkdtempSync(join(tmpdir(), 'cartridge-bench-health-'));
let database: BenchDatabase | undefined;
const port = await findFreePort();
const url = `http://127.0.0.1:${port}`;
try {
  if (onPostgres) database = await createBenchDatabase(databaseServer);
  const server = serverProcess({
    name: 'health',
    url,
    dataDir: root,
    logPath: join(root, 'server.log'),
    env: {
      ...inheritedEnv(),
      NODE_ENV: 'production',
      DATA_DIR: root,
      PORT: String(port),
      PLAY_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      SECRET_KEY: 'bench-health-secret-key-long-enough-0123456789',
      // Many sign-ins from one address are the load here, not an attack.
      SIGN_IN_LIMIT_ADDRESS: '100000',
      ...(database ? { DATABASE_URL: database.url } : {}),
    },
  });
  await server.start();
  try {
    // Accounts to sign the load's calls in with.
    const tokens: string[] = [];
    for (let index = 0; index < 20; index += 1) {
      const session = await json<{ authToken: string }>(
        await fetch(`${url}/api/auth/password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `seed${index}`, password: `seed password ${index}`, intent: 'register' }) }),
        'register',
      );
      tokens.push(session.authToken);
    }

    const idle = await probe(url, '/health');

    let running = true;
    let requests = 0;
    let errors = 0;
    let registered = 0;
    const loadClient = async (client: number) => {
      for (let turn = 0; running; turn += 1) {
        const token = tokens[(client + turn) % tokens.length]!;
        const kind = turn % 3;
        const request =
          kind === 0
            ? fetch(`${url}/api/auth/password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `load${client}x${registered++}`, password: `load password ${client}`, intent: 'register' }) })
            : kind === 1
              ? fetch(`${url}/api/auth/session`, { headers: { authorization: `Bearer ${token}` } })
              : fetch(`${url}/trpc/projects.mine,auth.session?batch=1&input=%7B%7D`, { headers: { authorization: `Bearer ${token}` } });
        const ok = await request.then(
          async (response) => {
            await response.arrayBuffer();
            return response.ok;
          },
          () => false,
        );
        if (ok) requests += 1;
        else errors += 1;
      }
    };
    const load = Array.from({ length: clients }, (_, client) => loadClient(client));
    // Let the load build up before measuring.
    await Bun.sleep(2000);
    const started = performance.now();
    const [loaded, ready] = await Promise.all([probe(url, '/health'), probe(url, '/ready')]);
    const loadSeconds = (performance.now() - started) / 1000;
    const loadRequests = requests;
    running = false;
    await Promise.all(load);

    const unanswered = loaded.filter((sample) => sample.status !== 200).length;
    if (idle.length === 0 || loaded.length === 0) fail('no /health samples');
    const idleP99 = percentile(idle.map((sample) => sample.ms), 99);
    const loadedTimes = loaded.map((sample) => sample.ms);
    const loadedP99 = percentile(loadedTimes, 99);
    console.log(
      `health/p99: ${formatRatio(loadedP99 / idleP99)} idle (under load ${ms(loadedP99)}, idle ${ms(idleP99)}; p50 ${ms(percentile(loadedTimes, 50))}, max ${ms(Math.max(...loadedTimes))}; ` +
        `${loaded.length} checks, ${unanswered} not 200; ${clients} clients, ${onPostgres ? 'PostgreSQL' : 'embedded database'}) — ${loadedP99 <= goalMs ? `meets goal ≤ ${goalMs} ms` : `MISSES GOAL ≤ ${goalMs} ms`}`,
    );
    const busy = ready.filter((sample) => sample.status === 503).length;
    console.log(`health/ready: ${busy} of ${ready.length} readiness checks said busy (503), ${ready.filter((sample) => sample.status === 200).length} ready (200) under load`);
    console.log(`health/load: ${Math.round(loadRequests / loadSeconds)} req/s of heavy routes (${errors} errors)`);
  } finally {
    await server.stop();
  }
} catch (error) {
  fail(String((error as Error)?.stack ?? error));
} finally {
  await database?.drop();
  rmSync(root, { recursive: true, force: true });
}
process.exit(hasFailed() ? 1 : 0);
