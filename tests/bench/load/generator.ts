/**
 * The load generator of bench:load, run as its own process (`bun tests/bench/load/generator.ts CONFIG`)
 * so that its CPU is measured apart from the orchestrator's and the servers'. CONFIG is a JSON file
 * (GeneratorConfig); the result (GeneratorResult) is written to `config.output`.
 *
 * `clients` closed-loop clients (no think time: each starts its next action when the last ended), each
 * with one keep-alive connection per server process (http-client.ts). Requests go round robin over the
 * processes. Warm-up from `startAt` (epoch ms) for `warmupSeconds`, then the measured window of
 * `seconds`: a request counts when it both started and ended inside the window. At the window's end no
 * action starts; chains under way finish (uncounted) before the connections close.
 */
import { HttpConnection, requestHead, type HttpReply } from './http-client.ts';
import { actions, type ActionName, type KindName, type MixData } from './mix.ts';
import { packSmallGame, type SmallArchive } from './seed.ts';

export type GeneratorConfig = {
  targets: { hostname: string; port: number }[];
  clients: number;
  startAt: number;
  warmupSeconds: number;
  seconds: number;
  /** A request without a reply after this long is an error (its connection is dropped). */
  timeoutMs: number;
  data: MixData;
  upload: { seed: number; dataBytes: number };
  /** Only this action (the per-action cost profile); unset: the mix. */
  only?: ActionName;
  output: string;
};

type KindResult = { count: number; errors: number; bytes: number; latencies: number[] };
export type GeneratorResult = {
  windowMs: number;
  kinds: Partial<Record<KindName, KindResult>>;
  actions: Partial<Record<ActionName, number>>;
  errorSamples: string[];
  warmupErrors: number;
  /** CPU this process used (user + system), seconds, from its start. */
  cpuSeconds: number;
};

class RequestError extends Error {}

const config = JSON.parse(await Bun.file(process.argv[2]!).text()) as GeneratorConfig;
const targets = config.targets.map((target) => ({ ...target, host: `${target.hostname}:${target.port}` }));
const windowStart = config.startAt + config.warmupSeconds * 1000;
const windowEnd = windowStart + config.seconds * 1000;
// Wall clock for the schedule (shared with the orchestrator), performance.now() for latencies.
const perfOffset = Date.now() - performance.now();
const windowStartPerf = windowStart - perfOffset;
const windowEndPerf = windowEnd - perfOffset;

const kinds = new Map<KindName, { count: number; errors: number; bytes: number; latencies: Float64Array; filled: number }>();
const actionCounts = new Map<ActionName, number>();
const errorSamples: string[] = [];
let warmupErrors = 0;

function recorder(kind: KindName) {
  let entry = kinds.get(kind);
  if (!entry) {
    entry = { count: 0, errors: 0, bytes: 0, latencies: new Float64Array(4096), filled: 0 };
    kinds.set(kind, entry);
  }
  return entry;
}

function record(kind: KindName, started: number, ended: number, bytes: number): void {
  if (started < windowStartPerf || ended > windowEndPerf) return;
  const entry = recorder(kind);
  if (entry.filled === entry.latencies.length) {
    const grown = new Float64Array(entry.latencies.length * 2);
    grown.set(entry.latencies);
    entry.latencies = grown;
  }
  entry.latencies[entry.filled++] = ended - started;
  entry.count++;
  entry.bytes += bytes;
}

function recordError(kind: KindName, started: number, message: string): void {
  if (started < windowStartPerf || started > windowEndPerf) {
    warmupErrors++;
    return;
  }
  recorder(kind).errors++;
  if (errorSamples.length < 20) errorSamples.push(`${kind}: ${message}`);
}

const connections: HttpConnection[] = [];
let turn = 0;

type Client = { connections: HttpConnection[] };

/** One request on the client's connection to the next process in turn; throws RequestError unless 200. */
async function send(client: Client, kind: KindName, head: (host: string) => Uint8Array, body?: Uint8Array, keepBody = false): Promise<HttpReply> {
  const index = turn++ % targets.length;
  const started = performance.now();
  let reply: HttpReply;
  try {
    reply = await client.connections[index]!.request(head(targets[index]!.host), body, keepBody);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    recordError(kind, started, message);
    throw new RequestError(message);
  }
  const ended = performance.now();
  if (reply.status !== 200) {
    const text = reply.body ? new TextDecoder().decode(reply.body.subarray(0, 200)) : '';
    recordError(kind, started, `HTTP ${reply.status} ${text}`);
    throw new RequestError(`HTTP ${reply.status}`);
  }
  record(kind, started, ended, reply.bytes);
  return reply;
}

/** Heads that never change, encoded once per process (the Host header differs). */
function perHost(build: (host: string) => Uint8Array): (host: string) => Uint8Array {
  const cache = new Map<string, Uint8Array>();
  return (host) => {
    let head = cache.get(host);
    if (!head) {
      head = build(host);
      cache.set(host, head);
    }
    return head;
  };
}

const accounts = config.data.accounts.map((account) => {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const frameInput = encodeURIComponent(JSON.stringify({ 0: { project: account.projectId } }));
  const sections = Object.fromEntries([0, 1, 2, 3, 4].map((i) => [i, { project: account.projectId }]));
  const sectionsInput = encodeURIComponent(JSON.stringify(sections));
  return {
    ...account,
    storePage: perHost((host) => requestHead('GET', `/api/store/projects/${account.projectId}`, host)),
    storeHtml: perHost((host) => requestHead('GET', `/store/${account.projectId}`, host, { accept: 'text/html' })),
    projectFrame: perHost((host) => requestHead('GET', `/trpc/projects.get,projects.mine?batch=1&input=${frameInput}`, host, bearer(account.sessionToken))),
    projectSections: perHost((host) =>
      requestHead(
        'GET',
        `/trpc/projects.branches.list,projects.versions.list,packages.list,projects.description.get,projects.media.get?batch=1&input=${sectionsInput}`,
        host,
        bearer(account.sessionToken),
      ),
    ),
    sessionToken: perHost((host) => requestHead('GET', '/api/auth/session', host, bearer(account.apiToken))),
    sessionCookie: perHost((host) => requestHead('GET', '/api/auth/session', host, { cookie: account.cookie })),
    sessionTrpc: perHost((host) => requestHead('GET', '/trpc/auth.session', host, bearer(account.sessionToken))),
    downloadUrl: perHost((host) =>
      requestHead('GET', `/api/store/projects/${account.projectId}/branches/${account.branchId}/packages/${account.packageId}/download?filter=zip`, host),
    ),
  };
});
type Account = (typeof accounts)[number];
const storeIndex = perHost((host) => requestHead('GET', '/api/store/projects', host));
const uploadArchive: SmallArchive = await packSmallGame(config.upload.seed, config.upload.dataBytes);
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const parse = <T>(reply: HttpReply): T => JSON.parse(new TextDecoder().decode(reply.body)) as T;

async function runAction(client: Client, name: ActionName, account: Account): Promise<void> {
  switch (name) {
    case 'store page':
      await send(client, 'store page', account.storePage);
      return;
    case 'store index':
      await send(client, 'store index', storeIndex);
      return;
    case 'store html':
      await send(client, 'store html', account.storeHtml);
      return;
    case 'project page':
      await send(client, 'project frame', account.projectFrame);
      await send(client, 'project sections', account.projectSections);
      return;
    case 'session': {
      const which = Math.floor(Math.random() * 3);
      if (which === 0) await send(client, 'session token', account.sessionToken);
      else if (which === 1) await send(client, 'session cookie', account.sessionCookie);
      else await send(client, 'session trpc', account.sessionTrpc);
      return;
    }
    case 'download': {
      const { url } = parse<{ url: string }>(await send(client, 'download url', account.downloadUrl, undefined, true));
      const signed = new URL(url);
      const reply = await send(client, 'download zip', (host) => requestHead('GET', `${signed.pathname}${signed.search}`, host));
      if (reply.bytes < 22) throw new RequestError(`a ZIP of ${reply.bytes} bytes`);
      return;
    }
    case 'upload': {
      const auth = { authorization: `Bearer ${account.apiToken}`, 'content-type': 'application/json' };
      const created = parse<{ id: string; uploadInfo: { token: string; uploadUrl: string } }>(
        await send(
          client,
          'upload create',
          (host) => requestHead('POST', `/api/projects/${account.uploadProjectId}/packages`, host, auth),
          json({ size: uploadArchive.bytes.length, title: 'Load upload', tags: ['os:web'], entrypoint: ['index.html'] }),
          true,
        ),
      );
      const partPath = `${new URL(created.uploadInfo.uploadUrl).pathname}?token=${encodeURIComponent(created.uploadInfo.token)}&part=0&hash=${uploadArchive.sha1}`;
      const descriptor = parse<unknown>(
        await send(client, 'upload part', (host) => requestHead('PUT', partPath, host, { 'content-type': 'application/octet-stream' }), uploadArchive.bytes, true),
      );
      await send(
        client,
        'upload finalize',
        (host) => requestHead('PUT', `/api/projects/${account.uploadProjectId}/packages/${created.id}/finalize`, host, auth),
        json({ token: created.uploadInfo.token, parts: [descriptor] }),
      );
      return;
    }
  }
}

const totalWeight = actions.reduce((sum, action) => sum + action.weight, 0);
function pickAction(): ActionName {
  if (config.only) return config.only;
  let roll = Math.random() * totalWeight;
  for (const action of actions) {
    roll -= action.weight;
    if (roll < 0) return action.name;
  }
  return actions.at(-1)!.name;
}

async function runClient(): Promise<void> {
  const client: Client = { connections: targets.map((target) => new HttpConnection(target.hostname, target.port)) };
  connections.push(...client.connections);
  while (Date.now() < windowEnd) {
    const name = pickAction();
    const account = accounts[Math.floor(Math.random() * accounts.length)]!;
    const started = performance.now();
    try {
      await runAction(client, name, account);
      if (started >= windowStartPerf && performance.now() <= windowEndPerf) actionCounts.set(name, (actionCounts.get(name) ?? 0) + 1);
    } catch (error) {
      if (!(error instanceof RequestError)) throw error;
      // Counted by send(); a refused chain is not retried. A short pause keeps a dead server from spinning the loop.
      await Bun.sleep(10);
    }
  }
}

const watchdog = setInterval(() => {
  const now = performance.now();
  for (const connection of connections) connection.abortIfOlder(now, config.timeoutMs);
}, 250);
const wait = config.startAt - Date.now();
if (wait > 0) await Bun.sleep(wait);
// Clients start spread over the first 100 ms (200 connections at once would all queue behind one accept loop).
await Promise.all(
  Array.from({ length: config.clients }, async (_, index) => {
    await Bun.sleep((index * 100) / config.clients);
    await runClient();
  }),
);
clearInterval(watchdog);
for (const connection of connections) connection.close();

const usage = process.resourceUsage();
const result: GeneratorResult = {
  windowMs: windowEnd - windowStart,
  kinds: Object.fromEntries(
    [...kinds].map(([kind, entry]) => [kind, { count: entry.count, errors: entry.errors, bytes: entry.bytes, latencies: Array.from(entry.latencies.subarray(0, entry.filled), (value) => Math.round(value * 100) / 100) }]),
  ),
  actions: Object.fromEntries(actionCounts),
  errorSamples,
  warmupErrors,
  cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
};
await Bun.write(config.output, JSON.stringify(result));
process.exit(0);
