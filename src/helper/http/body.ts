import { jsonNestsDeeperThan, readBoundedText } from '../../shared/bounded-body.ts';
import { HelperError } from '../errors.ts';

/** Every method's input is small (the largest is workdir_transition with a signed URL and four titles). */
export const bodyLimitBytes = 64 * 1024;
/** Inputs are at most two levels deep; a deeper body is refused before JSON.parse. */
const maxJsonDepth = 16;

/** Reads the body up to the limit; a longer one is refused while streaming (413), by Content-Length first. */
export function readLimitedBody(request: Request, limit = bodyLimitBytes): Promise<string> {
  return readBoundedText(request, limit, {
    tooLarge: () => new HelperError('bad_param', `The request body is over ${limit} bytes`, { field: 'body', limit }, 413),
    notUtf8: () => new HelperError('bad_param', 'The request body is not UTF-8', { field: 'body' }),
  });
}

/** The body as JSON: empty means `{}` (methods without input); too deep or not JSON is bad_param. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return {};
  if (jsonNestsDeeperThan(text, maxJsonDepth)) throw new HelperError('bad_param', `The request body is nested deeper than ${maxJsonDepth} levels`, { field: 'body' });
  try {
    return JSON.parse(text);
  } catch {
    throw new HelperError('bad_param', 'The request body is not JSON', { field: 'body' });
  }
}
