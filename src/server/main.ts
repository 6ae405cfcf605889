import { imageWorkerCommand } from './domains/content-images/image-worker/protocol.ts';

// Commands other than serving run before anything is opened, and exit with their own code.
const [command, ...commandArgs] = process.argv.slice(2);
// The compiled binary started as the image worker (image-worker/worker-process.ts): only that is loaded.
if (command === imageWorkerCommand) {
  await import('./domains/content-images/image-worker/worker-main.ts');
  await new Promise(() => undefined);
}
const { bootDeps, closeDeps } = await import('./boot.ts');
const { runAdminCommand } = await import('./commands/admin.ts');
const { formatServerHelp } = await import('./commands/help.ts');
const { ConfigError, loadConfig } = await import('./config.ts');
const { startServer } = await import('./serve.ts');
if (command === 'admin') {
  process.exit(await runAdminCommand(commandArgs, { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) }));
}
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(formatServerHelp());
  process.exit(0);
}
// A mistyped command must not start a server on the instance's database instead.
if (command !== undefined && !command.startsWith('-')) {
  process.stderr.write(`cartridge: unknown command ${command}\n\n${formatServerHelp()}`);
  process.exit(2);
}

let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`cartridge: ${error.message}`);
  process.exit(2);
}

let deps: Awaited<ReturnType<typeof bootDeps>>;
try {
  deps = await bootDeps(config);
} catch (error) {
  // Another SECRET_KEY than the instance's, or an embedded database another process holds: one sentence, like a bad setting.
  if (!(error instanceof ConfigError)) throw error;
  console.error(`cartridge: ${error.message}`);
  process.exit(2);
}
let server: ReturnType<typeof startServer>;
try {
  server = startServer(deps, { port: config.port, hostname: config.host, development: process.env.NODE_ENV === 'development', buildClientNow: true });
} catch (error) {
  // A port already in use (PORT, or PLAY_PORT = PORT+1): one line naming it, like a bad setting.
  if (!(error instanceof ConfigError)) throw error;
  console.error(`cartridge: ${error.message}`);
  await closeDeps(deps);
  process.exit(2);
}
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
