import clientIndex from '../client/index.html';
import { createApp } from './app.ts';
import { ConfigError } from './config.ts';
import type { Deps } from './deps.ts';
import { clientRoutes } from './http/client-assets.ts';
import { createPageHeads } from './domains/store/store-page-head.ts';
import { pageStatusOf } from './domains/pages/page-status.service.ts';
import { pageCaller } from './http/page-caller.ts';
import { healthRoutes, startLoopLagMonitor } from './http/health.ts';
import { withRequestLog } from './http/request-log.ts';
import { robotsRoute } from './http/robots.ts';
import { apiPolicy, baseSecurityHeaders, withHeaders } from './http/security-headers.ts';
import { uploadWorkerRoutes } from './http/worker-assets.ts';
import { serverJobs } from './jobs-list.ts';
import { schedulePeriodicJobs } from './jobs/periodic-job.ts';
import { startJobWorker, type JobWorker } from './jobs/worker.ts';
import { defaultPlayOrigin, playListenPort } from './browser-play/play-origin.ts';
import { startPlayServer } from './browser-play/play-server.ts';
import { startServingClock } from './domains/cloud-play/serving-clock.ts';

/**
 * This process's share of the job queue: JOB_WORKERS loops over the kinds of jobs-list.ts, DEPLOY_WORKERS
 * more over the deploy lane's and one over the maintenance lane's (define-job.ts JobLane); none with JOB_WORKERS=0, when
 * other processes run the jobs. Also makes sure each periodic job (the sweeps) is queued: every
 * process tries, one row each results.
 */
function startJobs(deps: Deps): { stop(): Promise<void> } {
  const { workers, deployWorkers, pollMs, leaseMs } = deps.config.jobs;
  if (workers === 0) return { stop: async () => {} };
  const general = serverJobs.filter((job) => job.lane === undefined);
  const deploys = serverJobs.filter((job) => job.lane === 'deploys');
  const loops: JobWorker[] = [startJobWorker(deps, general, { pollMs, leaseMs, concurrency: workers })];
  if (deploys.length > 0 && deployWorkers > 0) loops.push(startJobWorker(deps, deploys, { pollMs, leaseMs, concurrency: deployWorkers }));
  const maintenance = serverJobs.filter((job) => job.lane === 'maintenance');
  if (maintenance.length > 0) loops.push(startJobWorker(deps, maintenance, { pollMs, leaseMs, concurrency: 1 }));
  const worker = { stop: () => Promise.all(loops.map((loop) => loop.stop())) };
  const scheduling = schedulePeriodicJobs(deps.db, serverJobs).catch((error) =>
    deps.log.error('scheduling the periodic sweeps failed', { error: String(error) }),
  );
  return {
    async stop() {
      await scheduling;
      await worker.stop();
    },
  };
}

/**
 * stop() closes the listeners, then waits for the jobs in hand; close the database after it.
 * playUrl: the play origin's own listener (PLAY_PORT, default PORT+1; a free one with port 0).
 */
export type RunningServer = { url: string; port: number; playUrl: string; stop(): Promise<void> };

/**
 * Bun's router serves the single-page client (hashed bundles in production, reload in development);
 * Elysia's prefixes are listed as false so they fall through to the app.
 */
export type ServerOptions = {
  port: number;
  hostname: string;
  development?: boolean;
  /** Seconds a connection may stay quiet both ways before Bun closes it (default 120; tests shorten it). */
  idleTimeoutSeconds?: number;
  /** Build the web client from source at start rather than on its first request (`npm start`). */
  buildClientNow?: boolean;
};

/**
 * A port that cannot be bound is a configuration error (ConfigError: main.ts prints one line and exits
 * 2) naming the variable to change, not a stack trace. Other failures are passed on as they are.
 */
function listenFailure(error: unknown, variable: 'PORT' | 'PLAY_PORT', port: number, hostname: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const what = variable === 'PLAY_PORT' ? 'the play origin (HTML5 games; PLAY_PORT defaults to PORT+1)' : 'the app';
  if (code === 'EADDRINUSE') {
    return new ConfigError(`${variable}=${port} is already in use on ${hostname}: ${what} cannot listen there; stop what holds it or set ${variable} to a free port`);
  }
  if (code === 'EACCES') return new ConfigError(`${variable}=${port} may not be bound on ${hostname} by this user: ${what} cannot listen there; set ${variable} to another port`);
  if (code === 'EADDRNOTAVAIL') return new ConfigError(`HOST=${hostname} is not an address of this machine: ${what} cannot listen on ${variable}=${port}`);
  return error;
}

/** Route handlers whose answers carry the app origin's security headers. */
function secureRoutes<Route extends (request: Request) => Response | Promise<Response>>(routes: Record<string, Route>, headers: Record<string, string>) {
  return Object.fromEntries(Object.entries(routes).map(([path, route]) => [path, async (request: Request) => withHeaders(await route(request), headers)]));
}

export function startServer(givenDeps: Deps, options: ServerOptions): RunningServer {
  // The play origin listens first: without PLAY_ORIGIN, play URLs name its actual port.
  const playPort = playListenPort(givenDeps.config, options.port);
  let play: ReturnType<typeof startPlayServer>;
  try {
    play = startPlayServer(givenDeps, { port: playPort, hostname: options.hostname });
  } catch (error) {
    throw listenFailure(error, 'PLAY_PORT', playPort, options.hostname);
  }
  const deps: Deps = { ...givenDeps, config: { ...givenDeps.config, playOrigin: givenDeps.config.playOrigin ?? defaultPlayOrigin(play.port) } };
  const app = createApp(deps);
  const security = baseSecurityHeaders(deps.config);
  const apiHeaders = { ...security, 'content-security-policy': apiPolicy };
  const loopLag = startLoopLagMonitor();
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      port: options.port,
      hostname: options.hostname,
      development: options.development ?? false,
      maxRequestBodySize: 1024 * 1024 * 1024,
      // Bun's default (10 s without a byte either way) cuts requests that compute before answering:
      // a torrent or a download of a large package whose derived data is not made yet.
      idleTimeout: options.idleTimeoutSeconds ?? 120,
      routes: {
        ...clientRoutes(clientIndex, {
          development: options.development ?? false,
          config: deps.config,
          log: deps.log,
          buildNow: options.buildClientNow,
          // Public pages' titles, descriptions and link previews from the store cache (issue 21).
          pageHead: createPageHeads(deps),
          // 404 where the screen says "not found" (unknown paths, projects this caller cannot see).
          pageStatus: (request, url) => pageStatusOf(deps, () => pageCaller(deps, request), url.pathname),
        }),
        ...secureRoutes({ '/robots.txt': robotsRoute(deps.config) }, apiHeaders),
        // The upload worker is its own bundle (worker-assets.ts): Bun's HTML bundler has no worker entries.
        ...secureRoutes(uploadWorkerRoutes({ development: options.development ?? false, log: (message, fields) => deps.log.error(message, fields) }), security),
        '/api/*': false,
        '/trpc/*': false,
        // Pasted images' sizes (domains/content-images), served by the app, never the client's page.
        '/content-images/*': false,
        // Ahead of the app: /health is answered by Bun itself whatever the load, /ready says when it is too much.
        ...healthRoutes(deps.database, apiHeaders, loopLag),
      },
      fetch: withRequestLog(deps.log, async (request) => withHeaders(await app.fetch(request), apiHeaders)),
    });
  } catch (error) {
    loopLag.stop();
    void play.stop();
    throw listenFailure(error, 'PORT', options.port, options.hostname);
  }
  // Elysia reads the client address through the server it believes it listens on.
  (app as unknown as { server: typeof server }).server = server;
  const jobs = startJobs(deps);
  // That this process serves, recorded every few seconds: the cloud-play sweep does not count a gap of the whole instance.
  const servingClock = startServingClock(deps);
  const shownHost = options.hostname === '0.0.0.0' || options.hostname === '::' ? 'localhost' : options.hostname;
  return {
    url: `http://${shownHost}:${server.port}`,
    port: server.port ?? options.port,
    playUrl: play.url,
    // Jobs stop after the listener and before the caller closes the database: a job in hand finishes.
    stop: async () => {
      await Promise.all([server.stop(true), play.stop()]);
      loopLag.stop();
      await Promise.all([jobs.stop(), servingClock.stop()]);
    },
  };
}
