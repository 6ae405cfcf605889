import { AppError } from '../errors.ts';

/** Deeper bodies are refused before anything walks them: no schema of the API nests past a handful of levels. */
export const maxJsonDepth = 64;

/** application/json, or any application/*+json, with or without parameters. */
export function isJsonContentType(contentType: string | null | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export function bodyTooLarge(limit: number): AppError {
  return new AppError('limit_exceeded', `Request body too large: at most ${limit} bytes`, { limit }, 413);
}

export function notJsonBody(): AppError {
  return new AppError('not_supported', 'Request bodies must be JSON (content-type: application/json)', undefined, 415);
}

/**
 * The body as text, refused with 413 as soon as more than `limit` bytes are announced or arrive: a
 * hostile body never sits in memory beyond the limit.
 */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) throw bodyTooLarge(limit);
  if (!request.body) return '';
  const reader = request.body.getReader();
  const pieces: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw bodyTooLarge(limit);
    }
    pieces.push(value);
  }
  const bytes = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, size);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AppError('bad_param', 'Invalid `body`');
  }
}

const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * One pass over the text counting bracket nesting outside strings: O(size), no recursion, so a body of
 * a hundred thousand '[' is refused in microseconds instead of overflowing a recursive parser or
 * error formatter.
 */
export function assertJsonDepth(text: string, limit = maxJsonDepth): void {
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
      if (++depth > limit) throw new AppError('bad_param', 'Invalid `body`', { reason: `nested deeper than ${limit} levels` });
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) depth--;
  }
}

/** True when the request carries no bytes (whatever its headers say); reads at most one piece. */
export async function bodyIsEmpty(request: Request): Promise<boolean> {
  if (!request.body) return true;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return true;
    if (value.byteLength > 0) {
      await reader.cancel().catch(() => {});
      return false;
    }
  }
}

/** Reads and bounds a JSON body and checks its nesting; the text is not parsed. */
export async function readJsonText(request: Request, limit: number): Promise<string> {
  const text = await readBodyText(request, limit);
  assertJsonDepth(text);
  return text;
}

/** Reads, bounds and parses a JSON body; an empty body is null. */
export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const text = await readJsonText(request, limit);
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('bad_param', 'Invalid `body`');
  }
}
