import { jsonNestsDeeperThan, readBoundedText } from '../../shared/bounded-body.ts';
import { AppError } from '../errors.ts';

/** Deeper bodies are refused before anything walks them: no schema of the API nests past a handful of levels. */
const maxJsonDepth = 64;

/** application/json, or any application/*+json, with or without parameters. */
export function isJsonContentType(contentType: string | null | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function bodyTooLarge(limit: number): AppError {
  return new AppError('limit_exceeded', `Request body too large: at most ${limit} bytes`, { limit }, 413);
}

export function notJsonBody(): AppError {
  return new AppError('not_supported', 'Request bodies must be JSON (content-type: application/json)', undefined, 415);
}

/**
 * The body as text, refused with 413 as soon as more than `limit` bytes are announced or arrive: a
 * hostile body never sits in memory beyond the limit.
 */
function readBodyText(request: Request, limit: number): Promise<string> {
  return readBoundedText(request, limit, { tooLarge: () => bodyTooLarge(limit), notUtf8: () => new AppError('bad_param', 'Invalid `body`') });
}

/** Nesting is measured before anything walks the text (src/shared/bounded-body.ts). */
function assertJsonDepth(text: string, limit = maxJsonDepth): void {
  if (jsonNestsDeeperThan(text, limit)) throw new AppError('bad_param', 'Invalid `body`', { reason: `nested deeper than ${limit} levels` });
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
