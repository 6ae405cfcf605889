/**
 * Many clients on several server processes (`bun run bench:load`).
 *
 * The instance: a fresh PostgreSQL database (on BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres; dropped at the end), one blob folder (STORAGE_URL=file:/path,
 * which two processes on one machine share) and `bun src/server/main.ts` processes in production mode
 * (tests/bench/load/servers.ts), each with its own DATA_DIR and port, all with the same DATABASE_URL,
 * SECRET_KEY and STORAGE_URL. Seeded over HTTP through the first process (load/seed.ts): BENCH_LOAD_PROJECTS
 * (36) accounts, each with a browser session (bearer and cookie), an API token, a public project with a
 * published store page (public branch, version 1.0, one small web package of ≈ 66 KB, a description) and a
 * private project for the load's uploads.
 *
 * The load (load/mix.ts, printed as `load/mix`): BENCH_LOAD_CLIENTS (200) closed-loop clients without
 * think time, each drawing one action per turn by weight: store pages, the store index and the store
 * page's HTML (visitors), a project page (its two tRPC batches, signed in), session calls (REST with an
 * API token or the cookie, tRPC with the bearer), a download (the store's signed ZIP URL, then the ZIP)
 * and a few uploads (create, one part, finalize). Each request goes to the next process in turn, like a
 * load balancer. Generator (load/generator.ts, load/http-client.ts): its own process(es), a minimal
 * HTTP/1.1 client on keep-alive sockets; `load/generator cost` measures it against wrk and fetch() on a
 * bare Bun.serve in the same run (wrk is the cheapest but can neither chain an upload's calls nor time
 * each kind of a mixed load; fetch() cost 1.5–3× this client in runs here).
 *
 * Phases, each BENCH_LOAD_WARMUP_SECONDS (3) of warm-up then BENCH_LOAD_SECONDS (20) measured: one
 * process (the baseline), then a second process is started and the load spreads over both.
 *
 * Printed, ratios first: requests/s of two processes against one (goal ≥ 1.6×); errors (a status other
 * than 200, a dropped connection or no reply within 30 s; goal 0); p50 and p99 latency per kind of
 * request (goal p99 ≤ 100 ms for store and session calls at 200 clients; other kinds against the
 * one-process phase), with the mean latency Little's law sets for closed-loop clients; each process's RSS;
 * CPU of every process from /proc (servers, generator, this database's PostgreSQL backends, everything
 * else on the machine), and from the CPU each request costs, the throughput the machine's cores could
 * give at most: what bounds the scaling on a small machine, and the other work it was shared with.
 *
 * Before the phases, each action alone on the first process (`load/cost`, 3 s each): the server's and
 * PostgreSQL's CPU per action against a store page's, and its share of the mix's CPU at its weight.
 *
 * Settings: BENCH_LOAD_SECONDS (20), BENCH_LOAD_CLIENTS (200), BENCH_LOAD_WARMUP_SECONDS (3),
 * BENCH_LOAD_PROJECTS (36), BENCH_LOAD_GENERATORS (1 process; 2 splits the clients), BENCH_LOAD_CALIBRATE
 * (1; 0 skips the generator cost), BENCH_LOAD_PROFILE (1; 0 skips the per-action cost),
 * BENCH_DATABASE_URL. Exits 1 when a measurement failed, not on a missed goal.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { calibrateGenerators } from './load/calibrate.ts';
import { actions, describeMix, goalKinds, type ActionName, type KindName, type MixData } from './load/mix.ts';
import { runPhase, type PhaseOptions, type PhaseResult } from './load/phase.ts';
import { packSmallGame, seedInstance } from './load/seed.ts';
import { createBenchDatabase, startLoadServer, waitForClientBundle, type BenchDatabase, type LoadServer } from './load/servers.ts';
import { formatRatio, positiveNumber, trackFailures } from './support.ts';

const seconds = positiveNumber('BENCH_LOAD_SECONDS', 20);
const clients = Math.round(positiveNumber('BENCH_LOAD_CLIENTS', 200));
const warmupSeconds = positiveNumber('BENCH_LOAD_WARMUP_SECONDS', 3);
const projectCount = Math.round(positiveNumber('BENCH_LOAD_PROJECTS', 36));
const generators = Math.round(positiveNumber('BENCH_LOAD_GENERATORS', 1));
const calibrate = (process.env.BENCH_LOAD_CALIBRATE ?? '1') !== '0';
const profile = (process.env.BENCH_LOAD_PROFILE ?? '1') !== '0';
const databaseServer = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const goals = { scale: 1.6, p99Ms: 100 };
const packageDataBytes = 64 * 1024;
const upload = { seed: 9_999, dataBytes: 32 * 1024 };
const cores = availableParallelism();

const { fail, hasFailed } = trackFailures();

const ms = (value: number): string => (Number.isNaN(value) ? '?' : value < 10 ? `${value.toFixed(1)} ms` : `${Math.round(value)} ms`);
const pct = (value: number): string => `${Math.round(value)}%`;
const share = (value: number): string => (value < 10 ? `${value.toFixed(1)}%` : pct(value));
const mb = (bytes: number): string => `${Math.round(bytes / 1e6)} MB`;
const rate = (value: number): string => `${Math.round(value).toLocaleString('en-US')} req/s`;
const count = (value: number): string => Math.round(value).toLocaleString('en-US');

function cpuLine(phase: PhaseResult): string {
  const servers = phase.cpu.servers.map((server) => `server ${server.name} ${pct(server.percent)}`).join(', ');
  return (
    `${servers}, generator ${pct(phase.cpu.generators)}, PostgreSQL (this database's backends) ${pct(phase.cpu.postgres)}, ` +
    `everything else on the machine ${pct(phase.cpu.others)}; machine busy ${pct(phase.cpu.machine)} of ${cores * 100}% (% of one core)`
  );
}

/** CPU microseconds one request cost, by who spent it, over the phase. */
function costPerRequest(phase: PhaseResult) {
  const perRequest = (percent: number) => (percent / 100 / phase.requestsPerSecond) * 1e6;
  const servers = perRequest(phase.cpu.servers.reduce((sum, server) => sum + server.percent, 0));
  const generator = perRequest(phase.cpu.generators);
  const postgres = perRequest(phase.cpu.postgres);
  return { servers, generator, postgres, total: servers + generator + postgres };
}

function report(one: PhaseResult, two: PhaseResult): void {
  const scale = two.requestsPerSecond / one.requestsPerSecond;
  console.log(
    `load/scale: ${formatRatio(scale)} one process (two processes ${rate(two.requestsPerSecond)}: ${count(two.requests)} requests in ${two.windowSeconds} s; ` +
      `one process ${rate(one.requestsPerSecond)}: ${count(one.requests)} in ${one.windowSeconds} s; ${clients} clients) — ` +
      `${scale >= goals.scale ? `meets goal ≥ ${goals.scale}x` : `MISSES GOAL ≥ ${goals.scale}x`}`,
  );
  for (const phase of [one, two]) {
    const samples = phase.errorSamples.length ? `; first: ${phase.errorSamples.slice(0, 3).join(' | ')}` : '';
    console.log(
      `load/errors ${phase.label}: ${formatRatio(phase.errors / Math.max(1, phase.requests))} of requests (${count(phase.errors)} errors of ${count(phase.requests + phase.errors)}; ` +
        `${count(phase.warmupErrors)} during warm-up${samples}) — ${phase.errors === 0 ? 'meets goal 0' : 'MISSES GOAL 0'}`,
    );
  }
  const kindOrder: KindName[] = [
    'store page',
    'store index',
    'store html',
    'session token',
    'session cookie',
    'session trpc',
    'project frame',
    'project sections',
    'download url',
    'download zip',
    'upload create',
    'upload part',
    'upload finalize',
  ];
  for (const kind of kindOrder) {
    const a = one.kinds.get(kind);
    const b = two.kinds.get(kind);
    if (!a || !b) {
      fail(`no ${kind} request completed in ${!a ? one.label : two.label}`);
      continue;
    }
    const share = (summary: typeof a, phase: PhaseResult) => `${((summary.count / phase.requests) * 100).toFixed(1)}% of requests`;
    const figures = (summary: typeof a, phase: PhaseResult) =>
      `p50 ${ms(summary.p50)}, p99 ${ms(summary.p99)}, max ${ms(summary.max)}, ${count(summary.count / phase.windowSeconds)}/s, ${share(summary, phase)}`;
    const detail = `two processes: ${figures(b, two)}; one process: ${figures(a, one)}`;
    if (goalKinds.has(kind)) {
      const mark = (summary: typeof a) => (summary.p99 <= goals.p99Ms ? 'meets' : 'MISSES');
      console.log(
        `load/latency ${kind}: p99 ${formatRatio(b.p99 / goals.p99Ms)} goal with two processes, ${formatRatio(a.p99 / goals.p99Ms)} with one (${detail}) — ` +
          `two: ${mark(b)} goal p99 ≤ ${goals.p99Ms} ms, one: ${mark(a)} it`,
      );
    } else {
      const size = kind === 'download zip' ? `; ZIP of ${count(b.bytes / b.count)} bytes` : '';
      console.log(`load/latency ${kind}: p99 ${formatRatio(b.p99 / a.p99)} one process's (${detail}${size})`);
    }
  }
  // Little's law: closed-loop clients always waiting, so the mean time a request takes is clients / throughput.
  for (const phase of [one, two]) {
    const meanMs = (clients / phase.requestsPerSecond) * 1000;
    console.log(
      `load/queue ${phase.label}: ${formatRatio(meanMs / goals.p99Ms)} the p99 goal is the mean latency Little's law sets (${clients} clients without think time at ` +
        `${rate(phase.requestsPerSecond)}: a request takes ${ms(meanMs)} on average, queueing included); a p99 ≤ ${goals.p99Ms} ms for every kind needs ` +
        `well over ${rate((clients * 1000) / goals.p99Ms)} at ${clients} clients`,
    );
  }
  for (const phase of [one, two]) console.log(`load/cpu ${phase.label}: ${cpuLine(phase)}`);
  const costOne = costPerRequest(one);
  const costTwo = costPerRequest(two);
  const ceiling = (cost: ReturnType<typeof costPerRequest>, capacity: number) => (capacity / 100 / cost.total) * 1e6;
  const wholeMachine = ceiling(costTwo, cores * 100);
  const leftToUs = ceiling(costTwo, cores * 100 - two.cpu.others);
  console.log(
    `load/ceiling: ${formatRatio(wholeMachine / one.requestsPerSecond)} one process is the most ${cores} cores allow at the measured CPU per request ` +
      `(two processes: ${Math.round(costTwo.total)} µs a request = servers ${Math.round(costTwo.servers)} + PostgreSQL ${Math.round(costTwo.postgres)} + generator ${Math.round(costTwo.generator)}; ` +
      `one process: ${Math.round(costOne.total)} µs = ${Math.round(costOne.servers)} + ${Math.round(costOne.postgres)} + ${Math.round(costOne.generator)}), ` +
      `i.e. ${rate(wholeMachine)} with the whole machine, ${rate(leftToUs)} with what the other work left (${formatRatio(leftToUs / one.requestsPerSecond)}); ` +
      `the one-process phase left ${pct(Math.max(0, cores * 100 - one.cpu.machine))} of the machine idle for a second process to take`,
  );
  const rssText = (phase: PhaseResult) => phase.rss.map((item) => `${item.name} ${mb(item.peakBytes)} (from ${mb(item.startBytes)})`).join(', ');
  const a = two.rss.find((item) => item.name === one.rss[0]!.name);
  console.log(
    `load/rss: ${formatRatio((a?.peakBytes ?? Number.NaN) / one.rss[0]!.peakBytes)} one process's peak for ${one.rss[0]!.name} when two share the load ` +
      `(peaks over the window, sampled every 100 ms + kernel high-water mark: two processes ${rssText(two)}; one process ${rssText(one)})`,
  );
}

/**
 * Each action alone on one process (32 clients, 1 s warm-up, 3 s measured): the CPU one action costs the
 * server and PostgreSQL, against a store page's, and the share of the mix's CPU it takes at its weight.
 */
async function profileActions(base: Omit<PhaseOptions, 'label' | 'clients' | 'generators' | 'warmupSeconds' | 'seconds' | 'only'>): Promise<void> {
  const costs = new Map<ActionName, { server: number; postgres: number; generator: number; perSecond: number; p99: number; errors: number }>();
  for (const action of actions) {
    const result = await runPhase({ ...base, label: `cost ${action.name}`, clients: Math.min(clients, 32), generators: 1, warmupSeconds: 1, seconds: 3, only: action.name });
    // Per request, times the requests an action makes: chains cut by the window's edges do not skew it.
    const micros = (percent: number) => ((percent / 100) * result.windowSeconds * 1e6 * action.calls) / Math.max(1, result.requests);
    const p99 = Math.max(...[...result.kinds.values()].map((kind) => kind.p99));
    costs.set(action.name, {
      server: micros(result.cpu.servers.reduce((sum, server) => sum + server.percent, 0)),
      postgres: micros(result.cpu.postgres),
      generator: micros(result.cpu.generators) / action.calls,
      perSecond: result.requests / action.calls / result.windowSeconds,
      p99,
      errors: result.errors,
    });
  }
  const reference = costs.get('store page')!;
  const total = (name: ActionName) => costs.get(name)!.server + costs.get(name)!.postgres;
  const mixCpu = actions.reduce((sum, action) => sum + action.weight * total(action.name), 0);
  for (const action of actions) {
    const cost = costs.get(action.name)!;
    console.log(
      `load/cost ${action.name}: ${formatRatio(total(action.name) / (reference.server + reference.postgres))} a store page's CPU ` +
        `(server ${Math.round(cost.server)} µs + PostgreSQL ${Math.round(cost.postgres)} µs per action of ${action.calls} request(s); alone on one process, 32 clients: ` +
        `${count(cost.perSecond)} actions/s, slowest kind's p99 ${ms(cost.p99)}, generator ${Math.round(cost.generator)} µs per request${cost.errors ? `, ${cost.errors} errors` : ''}) — ${share((action.weight * total(action.name) * 100) / mixCpu)} of the mix's CPU at weight ${action.weight}%`,
    );
  }
}

let root: string | undefined;
let database: BenchDatabase | undefined;
const servers: LoadServer[] = [];
try {
  console.log(
    `bench: load, ${clients} closed-loop clients (no think time), ${warmupSeconds} s warm-up + ${seconds} s measured per phase (one process, then two), ` +
      `PostgreSQL at ${new URL(databaseServer).host} (fresh database), one blob folder shared by the processes, ${projectCount} seeded projects, ` +
      `${generators} generator process(es), ${cores} cores, load average ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')} at the start`,
  );
  console.log(`load/mix (share of actions): ${describeMix()}`);
  if (calibrate) {
    const costs = await calibrateGenerators(clients, 3);
    const ours = costs.find((item) => item.name.includes('this bench'))!;
    const wrk = costs.find((item) => item.name.startsWith('wrk'));
    const list = costs.map((item) => `${item.name} ${Math.round(item.microsPerRequest)} µs (${count(item.requests)} requests)`).join(', ');
    console.log(
      `load/generator cost: ${wrk ? `${formatRatio(ours.microsPerRequest / wrk.microsPerRequest)} wrk's CPU per request for this bench's client` : 'wrk not installed (apt-get install -y wrk) to compare with'} ` +
        `(CPU per request, start-up included, ${clients} connections for 3 s against a bare Bun.serve: ${list}); used: this bench's client, which chains an upload's calls and times each kind`,
    );
  }
  root = mkdtempSync(join(tmpdir(), 'cartridge-bench-load-'));
  const blobDir = join(root, 'blobs');
  mkdirSync(blobDir);
  database = await createBenchDatabase(databaseServer);
  const instance = { databaseUrl: database.url, secretKey: `load-bench-${crypto.randomUUID()}`, blobDir };
  const started = performance.now();
  servers.push(await startLoadServer('A', root, instance));
  await waitForClientBundle(servers[0]!);
  const accounts = await seedInstance(servers[0]!, projectCount, packageDataBytes);
  const uploadBytes = (await packSmallGame(upload.seed, upload.dataBytes)).bytes.length;
  console.log(
    `load/seed: ${projectCount} accounts with their public and private projects in ${((performance.now() - started) / 1000).toFixed(1)} s (server start included); ` +
      `upload archive ${count(uploadBytes)} bytes; action weights ${actions.map((action) => `${action.name} ${action.weight}`).join(', ')}`,
  );
  const data: MixData = { accounts };
  if (profile) await profileActions({ servers: [servers[0]!], data, databaseName: database.name, workDir: root, upload });
  const phase = (label: string) => runPhase({ label, servers: [...servers], clients, generators, warmupSeconds, seconds, data, databaseName: database!.name, workDir: root!, upload });
  const one = await phase('one process');
  servers.push(await startLoadServer('B', root, instance));
  await waitForClientBundle(servers[1]!);
  const two = await phase('two processes');
  report(one, two);
  for (const phaseResult of [one, two]) if (phaseResult.requests === 0) fail(`${phaseResult.label}: no request completed`);
} catch (error) {
  fail(`load: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}${servers.length ? `\nserver log:\n${servers.map((server) => server.readLog().slice(-1500)).join('\n')}` : ''}`);
} finally {
  for (const server of servers) await server.stop().catch((error: unknown) => fail(`stopping server ${server.name}: ${String(error)}`));
  await database?.drop().catch((error: unknown) => fail(`dropping the database: ${String(error)}`));
  if (root) rmSync(root, { recursive: true, force: true });
}
process.exit(hasFailed() ? 1 : 0);
