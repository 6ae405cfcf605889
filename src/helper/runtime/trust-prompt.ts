import { createInterface, type Interface } from 'node:readline';

export type TrustPrompt = {
  /** A page of this (untrusted) origin called: ask once, in the background (never waits). */
  offer(origin: string): void;
  close(): void;
};

export type TrustPromptOptions = {
  /** True when a person sits at the terminal (stdin is a TTY). */
  interactive: boolean;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  trust(origin: string): Promise<void>;
  log(line: string): void;
};

/**
 * First-use confirmation: when a page of an unknown origin calls, the helper answers 403 not_trusted at
 * once, and (in a terminal) asks "Trust <origin>? [y/N]" one question at a time, each origin once per
 * run. Without a terminal it prints the command that trusts the origin, once per origin.
 */
export function createTrustPrompt(options: TrustPromptOptions): TrustPrompt {
  const seen = new Set<string>();
  const queue: string[] = [];
  let asking = false;
  let closed = false;
  let lines: Interface | undefined;

  function askNext(): void {
    if (asking || closed) return;
    const origin = queue.shift();
    if (origin === undefined) return;
    asking = true;
    lines ??= createInterface({ input: options.input ?? process.stdin, output: options.output ?? process.stdout, terminal: true });
    lines.question(`A web page of ${origin} wants to use this helper (install and launch games). Trust ${origin}? [y/N] `, (answer) => {
      void (async () => {
        if (/^\s*y(es)?\s*$/i.test(answer)) {
          try {
            await options.trust(origin);
            options.log(`Trusted ${origin}: reload the page.`);
          } catch (error) {
            options.log(`Could not trust ${origin}: ${error instanceof Error ? error.message : String(error)}`);
          }
        } else {
          options.log(`Not trusted. To trust it later: cartridge-helper trust ${origin}`);
        }
        asking = false;
        askNext();
      })();
    });
  }

  return {
    offer(origin) {
      if (seen.has(origin) || closed) return;
      seen.add(origin);
      if (!options.interactive) {
        options.log(`Refused a request from ${origin} (not trusted). To trust it: cartridge-helper trust ${origin}`);
        return;
      }
      queue.push(origin);
      askNext();
    },
    close() {
      closed = true;
      lines?.close();
    },
  };
}
