/**
 * The load balancer's side of `bun run bench:health`, in a process of its own so the load's clients do
 * not delay it: `bun probe.ts URL PATH SECONDS INTERVAL_MS` asks URL+PATH every INTERVAL_MS for SECONDS
 * and prints one JSON line: each answer's latency in ms and its status (0: no answer within 30 s). Each
 * check opens a connection of its own, as a load balancer's health checks do.
 */
export {};

const [base, path, secondsText, intervalText] = process.argv.slice(2);
const until = performance.now() + Number(secondsText) * 1000;
const samples: { ms: number; status: number }[] = [];
while (performance.now() < until) {
  const started = performance.now();
  const status = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(30_000), keepalive: false, headers: { connection: 'close' } }).then(
    async (response) => {
      await response.arrayBuffer();
      return response.status;
    },
    () => 0,
  );
  samples.push({ ms: performance.now() - started, status });
  await Bun.sleep(Number(intervalText));
}
console.log(JSON.stringify(samples));
