import type { LogLevel } from './config.ts';

export type Logger = {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** The same logger with a prefix ('session s1: '). */
  child(prefix: string): Logger;
};

const ranks: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** One line per message on stderr (journald adds the time and the unit); `write` is replaceable for tests. */
export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(`${line}\n`), prefix = ''): Logger {
  const at = (messageLevel: LogLevel) => (message: string) => {
    if (ranks[messageLevel] < ranks[level]) return;
    write(`${new Date().toISOString()} ${messageLevel.padEnd(5)} ${prefix}${message}`);
  };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more) => createLogger(level, write, `${prefix}${more}`),
  };
}

/**
 * A URL fit for a log line: scheme, host and the first two path segments. Signed URLs carry their
 * signature in the path (/api/files/{package}/{kind}/{expires}/{signature}/...) and tokens go in
 * queries: neither is ever written whole.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const segments = parsed.pathname.split('/').filter(Boolean);
    const shown = segments.slice(0, 2).join('/');
    return `${parsed.protocol}//${parsed.host}/${shown}${segments.length > 2 || parsed.search ? '/…' : ''}`;
  } catch {
    return '(an address)';
  }
}

/** An error's message without any URL in it (fetch errors quote the address they failed on). */
export function describeError(error: unknown): string {
  let message = error instanceof Error ? error.message : String(error);
  // Node's fetch says only 'fetch failed': the reason (ECONNREFUSED, a DNS failure) is its cause's.
  let cause = error instanceof Error ? error.cause : undefined;
  for (let depth = 0; depth < 3 && cause instanceof Error; depth++) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (!message.includes(cause.message)) message += `: ${code && !cause.message.includes(code) ? `${code} ` : ''}${cause.message}`;
    cause = cause.cause;
  }
  return redactText(message).slice(0, 900);
}

/** Any text with its URLs cut down by redactUrl. */
export function redactText(text: string): string {
  return text.replace(/https?:\/\/[^\s'"]+/g, (url) => redactUrl(url));
}
