import { bootDeps, closeDeps } from './boot.ts';
import { ConfigError, formatConfigHelp, loadConfig } from './config.ts';
import { startServer } from './serve.ts';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(formatConfigHelp());
  process.exit(0);
}

let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`cartridge: ${error.message}`);
  process.exit(2);
}

const deps = await bootDeps(config);
const server = startServer(deps, { port: config.port, hostname: config.host, development: process.env.NODE_ENV === 'development' });
deps.log.info('listening', { url: config.publicUrl ?? server.url, database: deps.database.kind, storage: deps.storage.kind });

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  deps.log.info('stopping', { signal });
  await server.stop();
  await closeDeps(deps);
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
