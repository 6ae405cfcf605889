/** What a command may touch of the outside world: injectable so tests run the CLI in-process. */
export type CliIo = {
  env: Record<string, string | undefined>;
  /** Results (and --json output). */
  stdout: (text: string) => void;
  /** Messages, warnings and progress. */
  stderr: (text: string) => void;
  /** Progress bars redraw in place only on a terminal. */
  isTTY: boolean;
  fetch: typeof fetch;
  /** One line from the user (login's token prompt); undefined when there is no input. */
  readLine?: (prompt: string) => Promise<string | undefined>;
  signal?: AbortSignal;
};

export function processIo(): CliIo {
  return {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    isTTY: Boolean(process.stderr.isTTY),
    fetch: globalThis.fetch,
    readLine: async (prompt) => {
      process.stderr.write(prompt);
      for await (const line of console) return line;
      return undefined;
    },
  };
}

/** Fills what a partial io (tests pass {env, stdout}) leaves out. */
export function completeIo(partial: Partial<CliIo>): CliIo {
  const base = processIo();
  return { ...base, readLine: undefined, isTTY: false, ...partial };
}
