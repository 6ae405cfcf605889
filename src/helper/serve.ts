import type { HelperIo } from './cli/io.ts';
import type { HelperContext } from './context.ts';
import { loadEngine } from './engine.ts';
import { messageOf } from './errors.ts';
import { startHelperServer } from './http/server.ts';
import { helperVersion } from './methods/version.ts';
import { recoverInterrupted } from './recover.ts';
import { ProcessTracker } from './runtime/processes.ts';
import { createRefusalLog } from './runtime/refusal-log.ts';
import { TransitionRegistry } from './runtime/transitions.ts';
import type { StateStore } from './state/store.ts';

/**
 * The helper's server: checks the state file, recovers interrupted transitions, listens on 127.0.0.1
 * and runs until SIGINT/SIGTERM (running transitions are cancelled, which keeps them resumable;
 * launched games keep running).
 */
export async function serve(store: StateStore, port: number, io: HelperIo): Promise<number> {
  const log = (line: string) => io.stdout(`${new Date().toISOString()} ${line}\n`);
  const state = await store.read();
  const ctx: HelperContext = {
    store,
    engine: loadEngine,
    transitions: new TransitionRegistry(),
    processes: new ProcessTracker(),
    platform: process.platform,
    log,
  };
  await recoverInterrupted(ctx);

  let server;
  try {
    server = startHelperServer(ctx, { port, onUntrusted: createRefusalLog(log) });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    io.stderr(`cartridge-helper: cannot listen on 127.0.0.1:${port}: ${code === 'EADDRINUSE' ? 'the port is in use (is another cartridge-helper running?)' : messageOf(error)}\n`);
    return 1;
  }
  log(`cartridge-helper ${helperVersion} listening on http://127.0.0.1:${server.port} (state: ${store.path})`);
  if (state.trusted_origins.length === 0) log('No page is trusted yet: run  cartridge-helper trust https://your-cartridge-server');

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) process.exit(130);
      stopping = true;
      log(`${signal}: stopping (running transitions are kept to resume)`);
      void (async () => {
        await ctx.transitions.cancelAll(5000);
        await server.stop(true);
        resolve(0);
      })();
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });
}
