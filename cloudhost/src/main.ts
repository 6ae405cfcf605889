/**
 * The Cartridge cloud-play host agent (Node >= 22): `node cloudhost.js --server URL --token-file FILE
 * --capacity N --work-dir DIR`. See docs/en/cloud-play-hosts.md.
 */
import { readFileSync } from 'node:fs';
import { Agent } from './agent.ts';
import { agentName, agentVersionNumber, ConfigError, parseCommandLine, usage } from './config.ts';
import { createLogger, redactText } from './log.ts';

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine(process.argv.slice(2), process.env, (path) => readFileSync(path, 'utf8'));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${agentName}: ${error.message}\n\n${usage}`);
      return 2;
    }
    throw error;
  }
  if (parsed.kind === 'help') {
    process.stdout.write(usage);
    return 0;
  }
  if (parsed.kind === 'version') {
    process.stdout.write(`${agentName} ${agentVersionNumber}\n`);
    return 0;
  }
  const config = parsed.config;
  // A log reader that went away (a closed pipe) must not make every line an uncaught error, and that
  // error's own log line another: the agent goes on serving, unheard.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  const log = createLogger(config.logLevel);
  const agent = new Agent(config, { log });
  let stopping: Promise<void> | undefined;
  const stop = (signal: string) => {
    if (stopping) {
      log.warn(`${signal} again: exiting now`);
      process.exit(1);
    }
    log.info(`${signal}: stopping`);
    stopping = agent.shutdown();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // One session's failure is its own; anything that escapes is logged, never the end of the agent.
  process.on('uncaughtException', (error) => log.error(`uncaught: ${redactText(error.stack ?? error.message)}`));
  process.on('unhandledRejection', (reason) => log.error(`unhandled rejection: ${redactText(reason instanceof Error ? (reason.stack ?? reason.message) : String(reason))}`));
  try {
    await agent.start();
  } catch (error) {
    log.error(`cannot start: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  await new Promise<void>((resolve) => {
    const wait = setInterval(() => {
      if (!stopping) return;
      clearInterval(wait);
      void stopping.finally(resolve);
    }, 100);
  });
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${agentName}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
