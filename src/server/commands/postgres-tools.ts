import { accessSync, constants } from 'node:fs';
import { BackupRefusal } from './backup-format.ts';

/**
 * PostgreSQL's own client programs (pg_dump, pg_restore) for the backup commands. The connection goes
 * to them in the PG* environment variables libpq reads, parsed from DATABASE_URL: never on their
 * command line (which every user of the machine can read in /proc) and never in a message.
 */
export type PostgresTarget = {
  /** PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE and the TLS settings, over this process's environment. */
  env: Record<string, string>;
  /** For messages: postgres://user@host:port/database, without the password. */
  display: string;
  password: string | undefined;
};

/** URL query parameters (libpq's and postgres.js's names) carried over to their environment variables. */
const queryVariables: Record<string, string> = {
  sslmode: 'PGSSLMODE',
  sslrootcert: 'PGSSLROOTCERT',
  sslcert: 'PGSSLCERT',
  sslkey: 'PGSSLKEY',
  sslcrl: 'PGSSLCRL',
  options: 'PGOPTIONS',
  connect_timeout: 'PGCONNECT_TIMEOUT',
  target_session_attrs: 'PGTARGETSESSIONATTRS',
  host: 'PGHOST',
  port: 'PGPORT',
};

export function postgresTarget(databaseUrl: string, base: Record<string, string | undefined> = process.env): PostgresTarget {
  const url = new URL(databaseUrl);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined) env[name] = value;
  const set = (name: string, value: string | undefined) => {
    if (value) env[name] = value;
  };
  set('PGHOST', url.hostname.replace(/^\[(.*)\]$/, '$1'));
  set('PGPORT', url.port);
  set('PGUSER', decodeURIComponent(url.username));
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  set('PGPASSWORD', password);
  set('PGDATABASE', decodeURIComponent(url.pathname.replace(/^\//, '')));
  for (const [parameter, value] of url.searchParams) {
    const variable = queryVariables[parameter];
    if (variable) set(variable, value);
    // postgres.js's ssl=true|require|verify-full: libpq's sslmode.
    else if (parameter === 'ssl' && value !== 'false') set('PGSSLMODE', value === 'true' ? 'require' : value);
  }
  const display = `postgres://${env.PGUSER ? `${env.PGUSER}@` : ''}${url.host}${url.pathname}`;
  return { env, display, password };
}

/** Removes the password from text before it is shown (pg_dump does not print it; this is a second fence). */
export function withoutPassword(text: string, password: string | undefined): string {
  if (!password) return text;
  return text.split(password).join('***').split(encodeURIComponent(password)).join('***');
}

/** version: what `--version` printed ("pg_dump (PostgreSQL) 15.20 (Debian …)"); short: "pg_dump 15.20". */
export type PostgresTool = { name: 'pg_dump' | 'pg_restore'; path: string; version: string; short: string; major: number };

/** PG_DUMP / PG_RESTORE when set, else the program on PATH; refused with the way to get it when missing. */
export function findPostgresTool(name: 'pg_dump' | 'pg_restore', env: Record<string, string | undefined> = process.env): PostgresTool {
  const variable = name === 'pg_dump' ? 'PG_DUMP' : 'PG_RESTORE';
  const configured = env[variable]?.trim();
  let path: string | undefined;
  if (configured) {
    try {
      accessSync(configured, constants.X_OK);
      path = configured;
    } catch {
      throw new BackupRefusal(`${variable}=${JSON.stringify(configured)} is not an executable program.`);
    }
  } else {
    path = Bun.which(name, { PATH: env.PATH ?? '' }) ?? undefined;
  }
  if (!path) {
    throw new BackupRefusal(
      `${name} was not found on PATH: install PostgreSQL's client programs of the server's version (Debian: apt-get install postgresql-client) or set ${variable} to ${name}'s path.`,
    );
  }
  const probe = Bun.spawnSync([path, '--version'], { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env });
  const version = probe.stdout.toString().trim();
  const number = /\b((\d+)(?:\.\d+)*)\b/.exec(version.replace(/^[^)]*\)/, ''));
  if (probe.exitCode !== 0 || !number) throw new BackupRefusal(`${path} --version did not answer like ${name} (${JSON.stringify(version.slice(0, 100))}).`);
  return { name, path, version, short: `${name} ${number[1]}`, major: Number(number[2]) };
}

/** Runs a tool to its end; a failure is an Error carrying its last lines of stderr (password removed). */
export async function runPostgresTool(tool: PostgresTool, args: string[], target: PostgresTarget): Promise<void> {
  const child = Bun.spawn([tool.path, ...args], { env: target.env, stdin: 'ignore', stdout: 'ignore', stderr: 'pipe' });
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  if (code !== 0) {
    const lines = withoutPassword(stderr, target.password).trim().split('\n').slice(-5).join('\n');
    throw new Error(`${tool.name} failed (exit code ${code})${lines ? `:\n${lines}` : ''}`);
  }
}
