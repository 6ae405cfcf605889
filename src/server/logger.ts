import type { Config } from './config.ts';

export type LogFields = Record<string, unknown>;
export type Logger = {
  info(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
};

const levelRank = { silent: 0, error: 1, info: 2, debug: 3 } as const;

/** One JSON object per line on stdout (errors on stderr), so any log shipper can parse it. */
export function createLogger(level: Config['logLevel'], write = (line: string, isError: boolean) => (isError ? console.error(line) : console.log(line))): Logger {
  const rank = levelRank[level];
  const emit = (lineLevel: keyof typeof levelRank, message: string, fields?: LogFields) => {
    if (levelRank[lineLevel] > rank) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lineLevel, message, ...fields }), lineLevel === 'error');
  };
  return {
    info: (message, fields) => emit('info', message, fields),
    error: (message, fields) => emit('error', message, fields),
    debug: (message, fields) => emit('debug', message, fields),
  };
}
