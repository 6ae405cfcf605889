import { join, resolve } from 'node:path';
import { peakOf, startRssSampler } from '../packages/rss.ts';
import { cpuBetween, machineBusyBetween, sampleProcesses, type Sample } from '../proc-cpu.ts';
import type { GeneratorConfig, GeneratorResult } from './generator.ts';
import type { ActionName, KindName, MixData } from './mix.ts';
import type { LoadServer } from './servers.ts';

const generatorScript = resolve(import.meta.dir, 'generator.ts');

type KindSummary = { count: number; errors: number; bytes: number; p50: number; p90: number; p99: number; max: number; mean: number };
type CpuShare = { servers: { name: string; percent: number }[]; generators: number; postgres: number; machine: number; others: number };
export type PhaseResult = {
  label: string;
  windowSeconds: number;
  requests: number;
  errors: number;
  warmupErrors: number;
  requestsPerSecond: number;
  kinds: Map<KindName, KindSummary>;
  actions: Map<ActionName, number>;
  errorSamples: string[];
  cpu: CpuShare;
  /** Each server's RSS over the window: peak (sampled + kernel high-water mark) and at the start. */
  rss: { name: string; startBytes: number; peakBytes: number }[];
  /** CPU the generator processes used over their whole life (start-up and warm-up included), seconds. */
  generatorCpuSeconds: number;
};

export type PhaseOptions = {
  label: string;
  servers: LoadServer[];
  clients: number;
  generators: number;
  warmupSeconds: number;
  seconds: number;
  data: MixData;
  /** PostgreSQL backends serving this database are found by it in their process title. */
  databaseName: string;
  workDir: string;
  upload: { seed: number; dataBytes: number };
  only?: ActionName;
};

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function summarize(parts: { count: number; errors: number; bytes: number; latencies: number[] }[]): KindSummary {
  const all = new Float64Array(parts.reduce((sum, part) => sum + part.latencies.length, 0));
  let offset = 0;
  for (const part of parts) {
    all.set(part.latencies, offset);
    offset += part.latencies.length;
  }
  all.sort();
  const sum = all.reduce((total, value) => total + value, 0);
  return {
    count: parts.reduce((total, part) => total + part.count, 0),
    errors: parts.reduce((total, part) => total + part.errors, 0),
    bytes: parts.reduce((total, part) => total + part.bytes, 0),
    p50: percentile(all, 50),
    p90: percentile(all, 90),
    p99: percentile(all, 99),
    max: all.length ? all[all.length - 1]! : Number.NaN,
    mean: all.length ? sum / all.length : Number.NaN,
  };
}

/** Our database's backends: PostgreSQL titles them "postgres: USER DATABASE HOST ACTIVITY". */
function postgresBackends(sample: Sample, databaseName: string): number[] {
  return [...sample.processes.values()].filter((process) => process.comm === 'postgres' && process.cmdline.includes(` ${databaseName} `)).map((process) => process.pid);
}

/**
 * One measured phase: the generator processes against `servers`, CPU of every process sampled from
 * /proc at the window's start and end, each server's RSS every 100 ms (and its kernel high-water mark).
 */
export async function runPhase(options: PhaseOptions): Promise<PhaseResult> {
  const startAt = Date.now() + 1500; // the generators start, pack the upload archive and wait for this
  const windowStart = startAt + options.warmupSeconds * 1000;
  const windowEnd = windowStart + options.seconds * 1000;
  const children: { child: ReturnType<typeof Bun.spawn>; output: string; stderr: Promise<string> }[] = [];
  for (let index = 0; index < options.generators; index++) {
    const clients = Math.floor(options.clients / options.generators) + (index < options.clients % options.generators ? 1 : 0);
    const output = join(options.workDir, `${options.label.replace(/\W+/g, '-')}-${index}.json`);
    const config: GeneratorConfig = {
      targets: options.servers.map((server) => ({ hostname: '127.0.0.1', port: server.port })),
      clients,
      startAt,
      warmupSeconds: options.warmupSeconds,
      seconds: options.seconds,
      timeoutMs: 30_000,
      data: options.data,
      upload: options.upload,
      only: options.only,
      output,
    };
    const configPath = `${output}.config`;
    await Bun.write(configPath, JSON.stringify(config));
    const child = Bun.spawn([process.execPath, generatorScript, configPath], { stdin: 'ignore', stdout: 'ignore', stderr: 'pipe' });
    children.push({ child, output, stderr: new Response(child.stderr as ReadableStream).text() });
  }
  const samplers = options.servers.map((server) => startRssSampler(server.pid, 100));
  try {
    await Bun.sleep(Math.max(0, windowStart - Date.now()));
    const before = sampleProcesses();
    const window = Bun.sleep(Math.max(0, windowEnd - Date.now()));
    const phases = await Promise.all(samplers.map((sampler, index) => sampler.measure(options.servers[index]!.name, () => window)));
    const after = sampleProcesses();
    const codes = await Promise.all(children.map((item) => item.child.exited));
    const results: GeneratorResult[] = [];
    for (const [index, item] of children.entries()) {
      if (codes[index] !== 0) throw new Error(`load generator ${index} exited with ${codes[index]}: ${(await item.stderr).slice(-2000)}`);
      results.push((await Bun.file(item.output).json()) as GeneratorResult);
    }

    const serverCpu = options.servers.map((server) => ({ name: server.name, percent: cpuBetween(before, after, [server.pid]).percentOfCore }));
    const generators = cpuBetween(before, after, children.map((item) => item.child.pid)).percentOfCore;
    const postgres = cpuBetween(before, after, postgresBackends(after, options.databaseName)).percentOfCore;
    const machine = machineBusyBetween(before, after);
    const ours = serverCpu.reduce((sum, item) => sum + item.percent, 0) + generators + postgres;

    const kinds = new Map<KindName, KindSummary>();
    const kindNames = new Set(results.flatMap((result) => Object.keys(result.kinds) as KindName[]));
    for (const kind of kindNames) kinds.set(kind, summarize(results.flatMap((result) => (result.kinds[kind] ? [result.kinds[kind]] : []))));
    const actions = new Map<ActionName, number>();
    for (const result of results) for (const [name, count] of Object.entries(result.actions) as [ActionName, number][]) actions.set(name, (actions.get(name) ?? 0) + count);
    const requests = [...kinds.values()].reduce((sum, kind) => sum + kind.count, 0);
    const errors = [...kinds.values()].reduce((sum, kind) => sum + kind.errors, 0);
    const windowSeconds = results[0]!.windowMs / 1000;
    return {
      label: options.label,
      windowSeconds,
      requests,
      errors,
      warmupErrors: results.reduce((sum, result) => sum + result.warmupErrors, 0),
      requestsPerSecond: requests / windowSeconds,
      kinds,
      actions,
      errorSamples: results.flatMap((result) => result.errorSamples).slice(0, 10),
      cpu: { servers: serverCpu, generators, postgres, machine, others: Math.max(0, machine - ours) },
      rss: phases.map(({ phase }) => ({ name: phase.name, startBytes: phase.startBytes, peakBytes: peakOf(phase) })),
      generatorCpuSeconds: results.reduce((sum, result) => sum + result.cpuSeconds, 0),
    };
  } finally {
    for (const sampler of samplers) sampler.stop();
    for (const item of children) if (item.child.exitCode === null) item.child.kill();
  }
}
