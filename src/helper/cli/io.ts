import type { HelperEnv } from '../paths.ts';

/** What a command reads and writes: injected so tests can run main() in-process. */
export type HelperIo = {
  stdout(text: string): void;
  stderr(text: string): void;
  env: HelperEnv;
};

export function processIo(): HelperIo {
  return { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text), env: process.env };
}

export const exitCodes = { ok: 0, failed: 1, usage: 2 } as const;

/** A wrong command line: printed as one line with exit code 2. */
export class UsageError extends Error {}
