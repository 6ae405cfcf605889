/**
 * Reading untrusted bodies with bounds, for every program that serves HTTP (the server, the companion
 * app) and every answer from a third party: the size is refused while streaming, and JSON nesting is measured before anything
 * parses or walks the text. Callers bring their own error for each refusal.
 */
import { concatBytes } from './archive/bytes.ts';

/** The body as UTF-8 text; `tooLarge()` is thrown as soon as more than `limit` bytes are announced or arrive, `notUtf8()` for bad bytes. */
export async function readBoundedText(request: Request, limit: number, errors: { tooLarge(): Error; notUtf8(): Error }): Promise<string> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) throw errors.tooLarge();
  const bytes = await readBoundedBytes(request.body, limit);
  if (!bytes) throw errors.tooLarge();
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw errors.notUtf8();
  }
}

/**
 * A body's bytes in one array (a request's or a third party's answer), or undefined as soon as more than
 * `limit` bytes arrive: the stream is then cancelled, so no more than the limit is ever held.
 */
export async function readBoundedBytes(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array | undefined> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const pieces: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    pieces.push(value);
  }
  return pieces.length === 1 ? pieces[0]! : concatBytes(pieces, size);
}

const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when brackets outside strings nest deeper than `limit`: one pass, O(size), no recursion, so a
 * body of a hundred thousand '[' is refused in microseconds instead of overflowing a recursive parser
 * or error formatter.
 */
export function jsonNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
      continue;
    }
    if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) depth--;
  }
  return false;
}
