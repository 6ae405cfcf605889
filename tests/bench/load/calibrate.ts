/**
 * Which load generator costs the least CPU per request here: the same closed loop of `clients`
 * keep-alive connections against a bare Bun.serve (a 1 KB JSON reply, like a store page) in its own
 * process, driven for `seconds` by wrk (Debian's, if installed), by this bench's HTTP/1.1 client
 * (http-client.ts) and by fetch(); each generator's own CPU (user + system of its process, start-up
 * included) divided by the requests it completed.
 *
 * Also an entry point: `bun calibrate.ts raw|fetch URL CLIENTS SECONDS` runs one of the Bun loops and
 * prints {count, errors}.
 */
import { HttpConnection, requestHead } from './http-client.ts';

export type GeneratorCost = { name: string; requests: number; cpuSeconds: number; microsPerRequest: number };

const bareServer = `
const body = JSON.stringify({ id: 'x'.repeat(20), title: 'A game', description: { markdown: 'y'.repeat(900) } });
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(body, { headers: { 'content-type': 'application/json' } }) });
console.log(server.port);
`;

async function loop(kind: 'raw' | 'fetch', url: URL, clients: number, seconds: number): Promise<{ count: number; errors: number }> {
  let count = 0;
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const head = requestHead('GET', url.pathname, url.host);
  await Promise.all(
    Array.from({ length: clients }, async () => {
      const connection = new HttpConnection(url.hostname, Number(url.port));
      while (performance.now() < end) {
        try {
          if (kind === 'raw') {
            const reply = await connection.request(head);
            if (reply.status === 200) count++;
            else errors++;
          } else {
            const response = await fetch(url);
            await response.arrayBuffer();
            if (response.status === 200) count++;
            else errors++;
          }
        } catch {
          errors++;
        }
      }
      connection.close();
    }),
  );
  return { count, errors };
}

async function cost(name: string, args: string[], parse: (output: string) => number): Promise<GeneratorCost> {
  const child = Bun.spawn(args, { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const [output, errors, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`${name}: exit ${code} ${errors.slice(0, 300)}`);
  const usage = child.resourceUsage();
  const cpuSeconds = usage ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1e6 : Number.NaN;
  const requests = parse(output);
  return { name, requests, cpuSeconds, microsPerRequest: (cpuSeconds / requests) * 1e6 };
}

/** Each generator in turn against one bare server; the order is wrk (when present), this client, fetch. */
export async function calibrateGenerators(clients: number, seconds: number): Promise<GeneratorCost[]> {
  const server = Bun.spawn([process.execPath, '-e', bareServer], { stdin: 'ignore', stdout: 'pipe', stderr: 'inherit' });
  try {
    const reader = server.stdout.getReader();
    const { value } = await reader.read();
    reader.releaseLock();
    const port = Number(new TextDecoder().decode(value).trim());
    if (!port) throw new Error('the bare server printed no port');
    const url = `http://127.0.0.1:${port}/`;
    const results: GeneratorCost[] = [];
    if (Bun.which('wrk')) {
      results.push(
        await cost('wrk (1 thread)', ['wrk', '-t1', `-c${clients}`, `-d${seconds}s`, url], (output) => Number(/(\d+) requests in/.exec(output)?.[1] ?? Number.NaN)),
      );
    }
    const self = import.meta.path;
    for (const kind of ['raw', 'fetch'] as const) {
      results.push(
        await cost(kind === 'raw' ? 'Bun HTTP/1.1 client (this bench)' : 'Bun fetch()', [process.execPath, self, kind, url, String(clients), String(seconds)], (output) => {
          const parsed = JSON.parse(output) as { count: number; errors: number };
          return parsed.count;
        }),
      );
    }
    return results;
  } finally {
    server.kill();
    await server.exited;
  }
}

if (import.meta.main) {
  const [kind, url, clients, seconds] = process.argv.slice(2);
  if (kind !== 'raw' && kind !== 'fetch') throw new Error('usage: calibrate.ts raw|fetch URL CLIENTS SECONDS');
  console.log(JSON.stringify(await loop(kind, new URL(url!), Number(clients), Number(seconds))));
  process.exit(0);
}
