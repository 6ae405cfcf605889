import { sql } from 'drizzle-orm';
import { apiVersion } from '../api-version.ts';
import type { DatabaseHandle } from '../db/client.ts';

/**
 * `/health` (liveness) and `/ready` (readiness), served by Bun's router ahead of the app (serve.ts).
 *
 * /health is a static answer: Bun sends it from its own router without running any JavaScript, so it
 * needs neither the app's plugin chain nor the database, and answers as soon as the process reads the
 * request, however much work is queued in it (under 200 clients it took up to 9.6 s through the app).
 * A load balancer that only asks "is the process alive" should use it.
 *
 * /ready says whether the process can take more work now: 503 `{"status":"busy","reason":…}` when the
 * event loop lagged more than `maxLagMs` within the last second or so, or the database did not answer
 * `select 1` within `databaseTimeoutMs` (PostgreSQL's pool all taken, or the embedded database's one
 * connection held by long work); 200 `{"status":"ready"}` otherwise. Send traffic elsewhere while busy,
 * but do not restart for it: a busy process is not a dead one.
 */
export const readiness = { maxLagMs: 500, databaseTimeoutMs: 1000, lagSampleMs: 100, lagWindowSamples: 10 } as const;

export type ReadyAnswer = { status: 'ready' } | { status: 'busy'; reason: string };

function healthResponse(headers: Record<string, string>): Response {
  return Response.json({ status: 'ok', version: apiVersion }, { headers: { ...headers, 'cache-control': 'no-store' } });
}

/**
 * How late a timer of `lagSampleMs` fires, sampled continuously (the timer does not keep the process
 * alive): the largest delay of the last `lagWindowSamples` samples, so a stall is seen for a second after.
 */
export function startLoopLagMonitor(): { lagMs(): number; stop(): void } {
  const recent: number[] = [];
  let expected = performance.now() + readiness.lagSampleMs;
  const timer = setInterval(() => {
    const now = performance.now();
    recent.push(Math.max(0, now - expected));
    if (recent.length > readiness.lagWindowSamples) recent.shift();
    expected = now + readiness.lagSampleMs;
  }, readiness.lagSampleMs);
  timer.unref();
  // The sample due now counts too: a stall still in progress shows before its timer fires.
  return { lagMs: () => Math.max(0, performance.now() - expected, ...recent), stop: () => clearInterval(timer) };
}

/** The /ready answer: the loop's lag first (no database call when the process is already stalled). */
async function checkReadiness(database: DatabaseHandle, lagMs: number): Promise<ReadyAnswer> {
  if (lagMs > readiness.maxLagMs) return { status: 'busy', reason: `the event loop lagged ${Math.round(lagMs)} ms (limit ${readiness.maxLagMs} ms)` };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), readiness.databaseTimeoutMs)));
  const answered = database.db.execute(sql`select 1`).then(
    () => 'answered' as const,
    () => 'failed' as const,
  );
  const outcome = await Promise.race([answered, timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') return { status: 'busy', reason: `the database did not answer within ${readiness.databaseTimeoutMs} ms (its connections are all in use)` };
  if (outcome === 'failed') return { status: 'busy', reason: 'the database refused a query (unreachable or shutting down)' };
  return { status: 'ready' };
}

/** Bun.serve routes for both: the static /health answer and the /ready handler. */
export function healthRoutes(database: DatabaseHandle, headers: Record<string, string>, monitor: { lagMs(): number }) {
  const health = healthResponse(headers);
  const ready = async () => {
    const answer = await checkReadiness(database, monitor.lagMs());
    return Response.json(answer, { status: answer.status === 'ready' ? 200 : 503, headers: { ...headers, 'cache-control': 'no-store' } });
  };
  // GET and HEAD only: other methods go on to the app, which answers them 404 as any unknown route.
  return { '/health': { GET: health, HEAD: health }, '/ready': { GET: ready, HEAD: ready } };
}
