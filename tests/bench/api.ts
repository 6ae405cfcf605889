/**
 * API throughput and binary cold start (`bun run bench`).
 *
 * Throughput: the real server (tests/support startTestServer) on PGlite, then on a fresh PostgreSQL
 * database, loaded by wrk at 50 connections over loopback. wrk is a separate native process, so the
 * load generator neither shares the server's event loop nor needs a JS runtime of its own, and
 * `--latency` prints the percentiles we report. Every figure is printed as a ratio to GET /health
 * measured in the same run, on the same backend.
 *
 * Store: GET /api/store/projects/{project} of a public project with 3 public branches that each had 20
 * versions published (the shape), read signed out like a store visitor. Goal ≥ 0.3× health
 * on PostgreSQL.
 *
 * Cold start: dist/cartridge (run `npm run build` first) started 5 times on a data folder (PGlite) or a
 * database (PostgreSQL) initialised once; time from spawn to the first 200 on /health. Goal ≤ 500 ms.
 *
 * Settings (environment): BENCH_SECONDS (5), BENCH_WARMUP_SECONDS (1), BENCH_CONNECTIONS (50),
 * BENCH_THREADS (wrk threads, 1: leaves the other core of a 2-core machine to the server),
 * BENCH_COLD_RUNS (5), BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import postgres from 'postgres';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { createProject, makePublic } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { findFreePort } from '../support/free-port.ts';
import { formatRatio, positiveNumber, trackFailures } from './support.ts';

const seconds = positiveNumber('BENCH_SECONDS', 5);
const warmupSeconds = positiveNumber('BENCH_WARMUP_SECONDS', 1);
const connections = positiveNumber('BENCH_CONNECTIONS', 50);
const threads = positiveNumber('BENCH_THREADS', 1);
const coldRuns = positiveNumber('BENCH_COLD_RUNS', 5);
const postgresUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const binaryPath = resolve(import.meta.dir, '..', '..', 'dist', 'cartridge');
const coldStartGoalMs = 500;

type Backend = 'pglite' | 'postgres';
type LoadResult = { requestsPerSecond: number; p50Ms: number; p99Ms: number; requests: number; failures: string[] };
type LoadCase = { label: string; path: string; token?: string; expect?: (body: string) => boolean };

const { fail, hasFailed } = trackFailures();

function formatMs(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  return `${Math.round(ms)} ms`;
}

function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** wrk prints durations as 842.00us, 1.11ms or 1.02s. */
function parseDuration(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!match) throw new Error(`unexpected wrk duration ${JSON.stringify(text)}`);
  const value = Number(match[1]);
  const unit = match[2];
  return unit === 'us' ? value / 1000 : unit === 'ms' ? value : unit === 's' ? value * 1000 : value * 60_000;
}

function parseWrk(output: string): LoadResult {
  const percentile = (p: string) => {
    const match = new RegExp(`^\\s*${p}%\\s+(\\S+)\\s*$`, 'm').exec(output);
    if (!match) throw new Error(`wrk printed no ${p}% latency:\n${output}`);
    return parseDuration(match[1]!);
  };
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(output);
  const total = /^\s*(\d+) requests in/m.exec(output);
  if (!rps || !total) throw new Error(`unexpected wrk output:\n${output}`);
  const failures: string[] = [];
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(output);
  if (non2xx) failures.push(`${non2xx[1]} non-2xx responses`);
  const socketErrors = /Socket errors: (.*)/.exec(output);
  if (socketErrors) failures.push(`socket errors (${socketErrors[1]})`);
  return { requestsPerSecond: Number(rps[1]), p50Ms: percentile('50'), p99Ms: percentile('99'), requests: Number(total[1]), failures };
}

async function runWrk(url: string, durationSeconds: number, token?: string): Promise<LoadResult> {
  const args = ['wrk', `-t${threads}`, `-c${connections}`, `-d${durationSeconds}s`, '--latency', '--timeout', '10s'];
  if (token) args.push('-H', `authorization: Bearer ${token}`);
  args.push(url);
  const child = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  const [output, errors, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${errors || output}`);
  return parseWrk(output);
}

/** A public project with 3 public branches, 20 versions published to each: what the store page reads. */
async function seedStoreProject(server: TestServer, owner: TestUser): Promise<string> {
  const project = await createProject(server, owner, 'Bench Quest');
  await makePublic(server, project, owner);
  const trpc = server.trpc(owner.token);
  await trpc.projects.description.put.mutate({
    project: project.id,
    description: { markdown: `# Bench Quest\n\n${'A game about measuring things. '.repeat(40)}`, lang: 'en', images: [] },
  });
  for (const branchTitle of ['stable', 'beta', 'nightly']) {
    const branch = await trpc.projects.branches.create.mutate({ project: project.id, title: branchTitle });
    await trpc.projects.branches.patch.mutate({ project: project.id, branch: branch.id, isPublic: true });
    for (let index = 1; index <= 20; index++) {
      const version = await trpc.projects.versions.create.mutate({
        project: project.id,
        title: `${branchTitle}-1.${index}.0`,
        description: `Changes in ${branchTitle} 1.${index}.0: ${'fixed a thing, '.repeat(10)}`,
        packages: [],
      });
      await trpc.projects.versions.publish.mutate({ project: project.id, branch: branch.id, version: version.id });
    }
  }
  return project.id;
}

/** Before loading an endpoint, make sure it answers what we think it answers. */
async function checkEndpoint(server: TestServer, loadCase: LoadCase): Promise<void> {
  const response = await server.fetch(loadCase.path, { token: loadCase.token });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${loadCase.path}: ${response.status} ${body.slice(0, 200)}`);
  if (loadCase.token && !body.includes('"userInfo":{')) throw new Error(`${loadCase.path}: no userInfo in ${body.slice(0, 200)}`);
  if (loadCase.expect && !loadCase.expect(body)) throw new Error(`${loadCase.path}: unexpected body ${body.slice(0, 200)}`);
}

/**
 * When wrk stops, requests it already sent are still queued in the server (up to one per connection);
 * one more request of the same kind waits behind them, so the next measurement (or the shutdown) starts
 * on an idle server.
 */
async function drain(server: TestServer, loadCase: LoadCase): Promise<void> {
  await checkEndpoint(server, loadCase);
  await Bun.sleep(100);
}

async function benchBackend(backend: Backend): Promise<void> {
  const savedUrl = process.env.DATABASE_URL;
  if (backend === 'postgres') process.env.DATABASE_URL = postgresUrl;
  else delete process.env.DATABASE_URL;
  let server: TestServer | undefined;
  try {
    server = await startTestServer();
    const user = await registerUser(server);
    const storeProject = await seedStoreProject(server, user);
    const cases: LoadCase[] = [
      { label: 'api/health', path: '/health' },
      { label: 'api/session rest', path: '/api/auth/session', token: user.token },
      { label: 'api/session trpc', path: '/trpc/auth.session', token: user.token },
      {
        label: 'api/store project (3 branches × 20 versions)',
        path: `/api/store/projects/${storeProject}`,
        expect: (body) => (JSON.parse(body) as { branches: unknown[] }).branches.length === 3,
      },
    ];
    let healthRps = 0;
    for (const loadCase of cases) {
      await checkEndpoint(server, loadCase);
      const url = new URL(loadCase.path, server.url).toString();
      await runWrk(url, warmupSeconds, loadCase.token);
      await drain(server, loadCase);
      const result = await runWrk(url, seconds, loadCase.token);
      await drain(server, loadCase);
      if (loadCase.path === '/health') healthRps = result.requestsPerSecond;
      const ratio = healthRps > 0 ? result.requestsPerSecond / healthRps : Number.NaN;
      console.log(
        `${loadCase.label} ${backend}: ${formatRatio(ratio)} health (${formatCount(result.requestsPerSecond)} req/s, ` +
          `p50 ${formatMs(result.p50Ms)}, p99 ${formatMs(result.p99Ms)})`,
      );
      if (result.failures.length > 0) fail(`${loadCase.label} ${backend}: ${result.failures.join(', ')} of ${formatCount(result.requests)}`);
    }
  } catch (error) {
    fail(`api ${backend}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await server?.stop();
    if (savedUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = savedUrl;
  }
}

/** Spawns the binary and returns the milliseconds until /health first answers 200. */
async function timeColdStart(folder: string, env: Record<string, string>): Promise<number> {
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}/health`;
  const started = performance.now();
  const child = Bun.spawn([binaryPath], {
    cwd: folder,
    env: { PATH: '/usr/bin:/bin', HOME: folder, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error', ...env },
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'inherit',
  });
  try {
    while (performance.now() - started < 30_000 && child.exitCode === null) {
      const status = await fetch(url).then((response) => response.status, () => 0);
      if (status === 200) return performance.now() - started;
      await Bun.sleep(2);
    }
    throw new Error(child.exitCode !== null ? `binary exited with ${child.exitCode} before answering` : 'no 200 on /health within 30 s');
  } finally {
    child.kill('SIGTERM');
    const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(10_000).then(() => false)]);
    if (!exited) {
      child.kill('SIGKILL');
      await child.exited;
    }
  }
}

async function benchColdStart(backend: Backend): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'cartridge-bench-'));
  const admin = backend === 'postgres' ? postgres(postgresUrl, { max: 1, onnotice: () => {} }) : undefined;
  const databaseName = `cartridge_bench_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  try {
    const env: Record<string, string> = { DATA_DIR: join(folder, 'data') };
    if (admin) {
      await admin.unsafe(`create database "${databaseName}"`);
      const url = new URL(postgresUrl);
      url.pathname = `/${databaseName}`;
      env.DATABASE_URL = url.toString();
    }
    const initMs = await timeColdStart(folder, env);
    const times: number[] = [];
    for (let run = 0; run < coldRuns; run++) times.push(await timeColdStart(folder, env));
    times.sort((a, b) => a - b);
    const median = times[Math.floor((times.length - 1) / 2)]!;
    const max = times[times.length - 1]!;
    const ratio = median / coldStartGoalMs;
    console.log(
      `coldstart binary ${backend}: ${formatRatio(ratio)} goal (median ${formatMs(median)}, max ${formatMs(max)} over ${coldRuns} runs; ` +
        `goal ≤ ${coldStartGoalMs} ms; first start on a fresh ${backend === 'pglite' ? 'data folder' : 'database'} ${formatMs(initMs)})`,
    );
  } catch (error) {
    fail(`coldstart ${backend}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    if (admin) {
      await admin.unsafe(`drop database if exists "${databaseName}" with (force)`).catch(() => {});
      await admin.end({ timeout: 5 });
    }
    rmSync(folder, { recursive: true, force: true });
  }
}

if (!Bun.which('wrk')) {
  console.error('bench: wrk is missing; install it with: apt-get install -y wrk');
  process.exit(2);
}
console.log(
  `bench: wrk -t${threads} -c${connections}, ${warmupSeconds} s warm-up + ${seconds} s per case, loopback; ` +
    `PGlite in memory (startTestServer), PostgreSQL at ${new URL(postgresUrl).host}`,
);
for (const backend of ['pglite', 'postgres'] as const) await benchBackend(backend);

if (existsSync(binaryPath)) {
  for (const backend of ['pglite', 'postgres'] as const) await benchColdStart(backend);
} else {
  fail(`coldstart skipped: ${binaryPath} is missing; run npm run build first`);
}
process.exit(hasFailed() ? 1 : 0);
