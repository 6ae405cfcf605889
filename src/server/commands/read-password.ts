/**
 * A new password for an `admin` command, from stdin only (never argv or the environment, which other
 * users of the machine can read in /proc): typed at a hidden prompt, twice, when stdin is a terminal;
 * otherwise the single line a pipe or file holds.
 */
export class PasswordInputRefusal extends Error {}

/** More than any password the rules accept (256 characters of up to 4 bytes), so a longer one is still told apart. */
const pipedLimitBytes = 4096;

export async function readNewPassword(prompt: string, stderr: (text: string) => void): Promise<string> {
  if (!process.stdin.isTTY) return readPipedLine();
  const [first, again] = await readHiddenLines([prompt, 'Type it again: '], stderr);
  if (first !== again) throw new PasswordInputRefusal('The two passwords differ; nothing was changed');
  return first!;
}

async function readPipedLine(): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = Bun.stdin.stream().getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    chunks.push(read.value);
    size += read.value.length;
    if (size > pipedLimitBytes) throw new PasswordInputRefusal('stdin holds more than one password line; nothing was changed');
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks)).replace(/\r?\n$/, '');
  if (text === '') throw new PasswordInputRefusal('No password on stdin: type it at the prompt, or pipe it in as one line; nothing was changed');
  if (/[\r\n]/.test(text)) throw new PasswordInputRefusal('stdin holds more than one line: give the password as a single line; nothing was changed');
  return text;
}

/**
 * One line per prompt, typed with echo off (raw mode, set before the first prompt shows and kept until
 * the last answer): Enter ends a line, Backspace deletes, Ctrl-C or Ctrl-D on an empty line cancels.
 */
function readHiddenLines(prompts: string[], stderr: (text: string) => void): Promise<string[]> {
  const stdin = process.stdin;
  const lines: string[] = [];
  let typed = '';
  return new Promise((resolve, reject) => {
    const finish = (outcome: () => void) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      outcome();
    };
    const onData = (data: Buffer) => {
      for (const char of data.toString('utf8')) {
        if (char === '\r' || char === '\n') {
          lines.push(typed);
          typed = '';
          stderr('\n');
          if (lines.length === prompts.length) return finish(() => resolve(lines));
          stderr(prompts[lines.length]!);
        } else if (char === '\u0003' || (char === '\u0004' && typed === '')) {
          stderr('\n');
          return finish(() => reject(new PasswordInputRefusal('Cancelled; nothing was changed')));
        } else if (char === '\u007f' || char === '\b') typed = [...typed].slice(0, -1).join('');
        else if (char >= ' ' || char === '\t') typed += char;
      }
    };
    stdin.setRawMode(true);
    stdin.on('data', onData);
    stdin.resume();
    stderr(prompts[0]!);
  });
}
