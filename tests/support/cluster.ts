import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTRPCClient, httpLink } from '@trpc/client';
import postgres from 'postgres';
import type { CompressionAlgorithm } from '../../src/shared/archive/index.ts';
import type { UploadInfo } from '../../src/shared/schemas/packages.ts';
import { openDatabase, type Database, type DatabaseHandle } from '../../src/server/db/client.ts';
import type { AppRouter } from '../../src/server/trpc/router.ts';
import type { TestUser } from './accounts.ts';
import { findFreePort } from './free-port.ts';
import { packFiles, putPart, splitParts, type PackageFiles } from './packages.ts';
import { startS3Server, type TestS3Server } from './s3-server.ts';
import type { TestServer } from './server.ts';
import { fetchAt, inheritedEnv, serverProcess, type FetchInit } from './server-process.ts';

/**
 * Several real server processes (`bun src/server/main.ts`) sharing only what a scale-out deployment
 * shares (docs/en/scale-out.md): one PostgreSQL database and one S3 bucket. Each process has its own
 * ports and its own DATA_DIR (nothing on disk in common) and runs job workers. They are told the same
 * PUBLIC_URL and PLAY_ORIGIN, addresses of a load balancer that does not exist: a URL one process
 * issues is sent to a chosen process with `node.at(url)`, as a load balancer might.
 *
 * The database is a fresh one on the PostgreSQL server of DATABASE_URL, else on the local server
 * (postgres://postgres@127.0.0.1:5432/postgres), dropped by stop(). The processes start at the same
 * moment on that empty database, so every cluster also shows that concurrent first starts migrate it once.
 */

/** The load balancer's addresses every process is given (never reached: see ClusterNode.at). */
const clusterPublicUrl = 'http://cartridge.test';
const clusterPlayOrigin = 'http://play.cartridge.test';
const clusterSecretKey = 'cluster-secret-key-shared-by-every-process-0123456789';

/** One JSON line of a process's log (LOG_LEVEL=debug: requests, job outcomes, errors). */
export type LogEntry = { level: string; message: string } & Record<string, unknown>;

export type ClusterNode = {
  /** 'A', 'B', ... */
  name: string;
  /** http://127.0.0.1:PORT */
  url: string;
  /** http://127.0.0.1:PLAY_PORT */
  playUrl: string;
  dataDir: string;
  fetch(path: string, init?: FetchInit): Promise<Response>;
  /** A URL issued for the load balancer (PUBLIC_URL or PLAY_ORIGIN), sent to this process instead. */
  at(url: string): string;
  trpc(token?: string): ReturnType<typeof createTRPCClient<AppRouter>>;
  /** This process seen through the shared test helpers' TestServer type (url, fetch, trpc; no deps: another process). */
  server: TestServer;
  /** What the process printed so far. */
  readLog(): string;
  /** Its JSON log lines. */
  logEntries(): LogEntry[];
  readonly running: boolean;
  /** The current process's pid (to stop and continue it: SIGSTOP, SIGCONT), undefined while it is down. */
  readonly pid: number | undefined;
  /** SIGTERM (a clean stop) and wait for the process to exit. */
  stop(): Promise<void>;
  /** Stops it (SIGTERM) if it runs, then starts it again on the same ports, DATA_DIR and variables. */
  restart(): Promise<void>;
};

export type Cluster = {
  nodes: ClusterNode[];
  a: ClusterNode;
  b: ClusterNode;
  /** The shared database, opened in the test process for assertions. */
  db: Database;
  database: DatabaseHandle;
  databaseUrl: string;
  s3: TestS3Server;
  /** Stops the processes and moto, drops the database, removes the data folders. */
  stop(): Promise<void>;
};

export type ClusterOptions = {
  /** How many processes (default 2). */
  nodes?: number;
  /** Extra variables for every process. */
  env?: Record<string, string>;
  startTimeoutMs?: number;
};

/** The PostgreSQL server the cluster makes its database on. */
function postgresServerUrl(): string {
  return process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
}

function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'DATABASE_URL';
  }
}

export type ScratchDatabase = { url: string; drop(): Promise<void> };

/**
 * A fresh database on the PostgreSQL server (like tests/support/database.ts, but never PGlite: several
 * processes cannot share one). Without a reachable server: one sentence saying so.
 */
export async function createScratchDatabase(prefix = 'cartridge_scale'): Promise<ScratchDatabase> {
  const serverUrl = postgresServerUrl();
  const name = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await admin.unsafe(`create database "${name}"`);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `The scale-out tests need a PostgreSQL server where they may create databases, and ${shownUrl(serverUrl)} refused or did not answer (${reason}): start one or set DATABASE_URL.`,
    );
  } finally {
    await admin.end({ timeout: 1 }).catch(() => {});
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const cleanup = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists "${name}" with (force)`);
      await cleanup.end();
    },
  };
}

type NodeSpec = { name: string; port: number; playPort: number; dataDir: string; env: Record<string, string> };

/** Starts one process and waits for /health (restart() starts it again on the same ports and DATA_DIR). */
async function startNode(spec: NodeSpec, startTimeoutMs = 60_000): Promise<ClusterNode> {
  const logPath = join(spec.dataDir, 'server.log');
  const url = `http://127.0.0.1:${spec.port}`;
  const playUrl = `http://127.0.0.1:${spec.playPort}`;
  const child = serverProcess({ name: `process ${spec.name}`, url, dataDir: spec.dataDir, env: spec.env, logPath, startTimeoutMs });
  const readLog = child.readLog;
  const stop = async () => {
    await child.stop();
  };

  const fetchHere = (path: string, init?: FetchInit) => fetchAt(url, path, init);
  const at = (issued: string) => {
    const parsed = new URL(issued);
    const target = parsed.origin === new URL(clusterPlayOrigin).origin ? playUrl : parsed.origin === new URL(clusterPublicUrl).origin ? url : undefined;
    if (!target) throw new Error(`${issued} is not an address of the cluster (${clusterPublicUrl}, ${clusterPlayOrigin})`);
    return `${target}${parsed.pathname}${parsed.search}`;
  };
  const trpc = (token?: string) =>
    createTRPCClient<AppRouter>({ links: [httpLink({ url: `${url}/trpc`, headers: () => (token ? { authorization: `Bearer ${token}` } : {}) })] });
  const server = {
    url,
    playUrl,
    dataDir: spec.dataDir,
    fetch: fetchHere,
    trpc,
    get deps(): never {
      throw new Error(`process ${spec.name} runs apart: its deps are not in this process`);
    },
    stop: async () => {},
  } as unknown as TestServer;

  await child.start();
  return {
    name: spec.name,
    url,
    playUrl,
    dataDir: spec.dataDir,
    fetch: fetchHere,
    at,
    trpc,
    server,
    readLog,
    logEntries() {
      return readLog()
        .split('\n')
        .flatMap((line) => {
          if (!line.startsWith('{')) return [];
          try {
            return [JSON.parse(line) as LogEntry];
          } catch {
            return [];
          }
        });
    },
    get running() {
      return child.running;
    },
    get pid() {
      return child.pid;
    },
    stop,
    async restart() {
      await stop();
      await child.start();
    },
  };
}

/** The variables of one process of a cluster on this database and bucket. */
function nodeEnv(options: { port: number; playPort: number; dataDir: string; databaseUrl: string; s3?: TestS3Server; env?: Record<string, string> }): Record<string, string> {
  return {
    ...inheritedEnv(),
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(options.port),
    PLAY_PORT: String(options.playPort),
    DATA_DIR: options.dataDir,
    DATABASE_URL: options.databaseUrl,
    ...(options.s3 ? { STORAGE_URL: `s3://${options.s3.bucket}`, ...options.s3.env } : { STORAGE_URL: 'file:' }),
    SECRET_KEY: clusterSecretKey,
    PUBLIC_URL: clusterPublicUrl,
    PLAY_ORIGIN: clusterPlayOrigin,
    JOB_WORKERS: '2',
    JOB_POLL_MS: '100',
    // debug: the workers log each job's outcome ('job succeeded' with its id), which the job tests count.
    LOG_LEVEL: 'debug',
    // Same code and algorithm as production, at the lowest cost (tests/support/server.ts says why).
    PASSWORD_HASH_MEMORY_KIB: '64',
    PASSWORD_HASH_TIME_COST: '1',
    ...options.env,
  };
}

/** Two (or more) processes on a fresh database and a fresh moto bucket, started at the same moment. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const count = options.nodes ?? 2;
  const cleanups: (() => Promise<void> | void)[] = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await Promise.resolve(step()).catch(() => {});
  };
  try {
    const [made, bucket] = await Promise.allSettled([createScratchDatabase(), startS3Server({ bucket: 'cartridge-cluster' })]);
    if (bucket.status === 'fulfilled') cleanups.push(() => bucket.value.stop());
    if (made.status === 'fulfilled') cleanups.push(() => made.value.drop());
    // The database's failure first: its message says what to do.
    if (made.status === 'rejected') throw made.reason;
    if (bucket.status === 'rejected') throw bucket.reason;
    const [scratch, s3] = [made.value, bucket.value];
    const specs: NodeSpec[] = [];
    for (let index = 0; index < count; index++) {
      const dataDir = mkdtempSync(join(tmpdir(), `cartridge-node-${index}-`));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const [port, playPort] = [await findFreePort(), await findFreePort()];
      specs.push({
        name: String.fromCharCode(65 + index),
        port,
        playPort,
        dataDir,
        env: nodeEnv({ port, playPort, dataDir, databaseUrl: scratch.url, s3, env: options.env }),
      });
    }
    const started = await Promise.allSettled(specs.map((spec) => startNode(spec, options.startTimeoutMs)));
    const nodes = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    cleanups.push(() => Promise.all(nodes.map((node) => node.stop())).then(() => {}));
    const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
    const database = await openDatabase({ url: scratch.url });
    cleanups.push(() => database.close());
    return {
      nodes,
      a: nodes[0]!,
      b: nodes[1] ?? nodes[0]!,
      db: database.db,
      database,
      databaseUrl: scratch.url,
      s3,
      stop: cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** Polls until check() is truthy (returns it), or fails naming what was awaited. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(everyMs);
  }
}

/** The JSON of a 200 answer, or an error with the status and body. */
export async function okJson<T = any>(response: Response | Promise<Response>, what: string): Promise<T> {
  const settled = await response;
  const text = await settled.text();
  if (settled.status !== 200) throw new Error(`${what}: HTTP ${settled.status} ${text}`);
  return JSON.parse(text) as T;
}

/** The jobs a process's workers ran to success, from its log ('job succeeded', LOG_LEVEL=debug). */
export function jobsRunBy(node: ClusterNode): { job: string; kind: string }[] {
  return node.logEntries().flatMap((entry) => (entry.message === 'job succeeded' ? [{ job: String(entry.job), kind: String(entry.kind) }] : []));
}

/** Error lines of a process's log (level error), for assertions and failure messages. */
export function errorsOf(node: ClusterNode): LogEntry[] {
  return node.logEntries().filter((entry) => entry.level === 'error');
}

type PartDescriptor = { part: number; hash: string; size: number };

/**
 * One package through the real API with its parts spread over processes: the record is created on
 * `createOn`, part i is PUT to `partsTo[i % partsTo.length]` (all at once), the finalize goes to
 * `finalizeOn`. Returns the finalize reply as it came and which process took each part.
 */
export async function uploadAcross(
  nodes: { createOn: ClusterNode; partsTo: ClusterNode[]; finalizeOn: ClusterNode },
  user: Pick<TestUser, 'token'>,
  projectId: string,
  archive: Uint8Array,
  body: { title?: string; tags?: string[]; entrypoint?: string[] | null } = {},
): Promise<{ id: string; finalize: Response; partNodes: string[] }> {
  const created = await okJson<{ id: string; uploadInfo: UploadInfo }>(
    nodes.createOn.fetch(`/api/projects/${projectId}/packages`, {
      method: 'POST',
      token: user.token,
      json: { size: archive.length, title: body.title, tags: body.tags ?? [], entrypoint: body.entrypoint ?? null, basePackage: null },
    }),
    'create package',
  );
  const parts = splitParts(archive, created.uploadInfo.partSize);
  const partNodes = parts.map((_, part) => nodes.partsTo[part % nodes.partsTo.length]!);
  const descriptors = await Promise.all(
    parts.map((bytes, part) => okJson<PartDescriptor>(putPart({ ...created.uploadInfo, uploadUrl: partNodes[part]!.at(created.uploadInfo.uploadUrl) }, part, bytes), `part ${part}`)),
  );
  const finalize = await nodes.finalizeOn.fetch(`/api/projects/${projectId}/packages/${created.id}/finalize`, {
    method: 'PUT',
    token: user.token,
    json: { token: created.uploadInfo.token, parts: descriptors },
  });
  return { id: created.id, finalize, partNodes: partNodes.map((node) => node.name) };
}

/** Packs files into an archive (no base package: nothing is read from a server). */
export async function packArchiveOf(files: PackageFiles, options: { compression?: CompressionAlgorithm; executables?: string[] } = {}): Promise<Uint8Array> {
  const noServer = {} as TestServer;
  return packFiles(noServer, files, options);
}

/**
 * Makes the project public (its owner needs store_publish: the instance's first user has every
 * privilege), publishes the packages as a new version on a new public branch, all through `node`.
 */
export async function publishToStore(node: ClusterNode, owner: Pick<TestUser, 'token'>, projectId: string, packageIds: string[]): Promise<{ branchId: string; versionId: string }> {
  await okJson(node.fetch(`/api/projects/${projectId}`, { method: 'PATCH', token: owner.token, json: { isPublic: true } }), 'make the project public');
  const branch = await okJson<{ id: string }>(node.fetch(`/api/projects/${projectId}/branches`, { method: 'POST', token: owner.token, json: { title: `b${Math.random().toString(36).slice(2, 7)}` } }), 'branch');
  await okJson(node.fetch(`/api/projects/${projectId}/branches/${branch.id}`, { method: 'PATCH', token: owner.token, json: { isPublic: true } }), 'public branch');
  const version = await okJson<{ id: string }>(
    node.fetch(`/api/projects/${projectId}/versions`, { method: 'POST', token: owner.token, json: { title: `v${Math.random().toString(36).slice(2, 7)}`, packages: packageIds } }),
    'version',
  );
  await okJson(node.fetch(`/api/projects/${projectId}/branches/${branch.id}/versions/${version.id}`, { method: 'POST', token: owner.token }), 'publish');
  return { branchId: branch.id, versionId: version.id };
}
