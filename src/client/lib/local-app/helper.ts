import { ApiError } from '../../../shared/api/errors.ts';
import { errorText, toDisplayError } from '../errors.ts';
import { createLocalHelperClient, type LocalHelperClient } from '../../../shared/local/helper-client.ts';
import type { LocalHelperInput, LocalHelperMethod, LocalHelperReply } from '../../../shared/schemas/local-helper.ts';

/**
 * The page's connection to the local companion app (spec §7 'Local helper': loopback port 17303),
 * through the shared client (src/shared/local/helper-client.ts): one for the whole page.
 */
let client: LocalHelperClient = createLocalHelperClient();

/** Component tests: a helper on another port, called with a fetch that sends the page's Origin. */
export function setLocalHelperClient(next: LocalHelperClient | undefined): void {
  client = next ?? createLocalHelperClient();
}

/**
 * Nothing answered on the helper's port (the shared client's 'network'): the app is not running. Its
 * own code here, so an error dialog does not say the server could not be reached.
 */
export const LOCAL_APP_UNREACHABLE = 'local_app_unreachable';

/** One call of the helper; a failure throws an ApiError with the helper's code (or LOCAL_APP_UNREACHABLE). */
export async function callHelper<M extends LocalHelperMethod>(method: M, input: LocalHelperInput<M>, signal?: AbortSignal): Promise<LocalHelperReply<M>> {
  try {
    return await client.call(method, input, signal);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'network') throw new ApiError(LOCAL_APP_UNREACHABLE, error.message, { cause: error, request: error.request });
    throw error;
  }
}

/** The helper's failure code (LOCAL_APP_UNREACHABLE: the app is not running). */
export function helperErrorCode(error: unknown): string | undefined {
  return error instanceof ApiError ? error.code : undefined;
}

/**
 * The command that trusts this site: for the origin the helper's not_trusted refusal names in
 * details.origin (the one its message tells to trust), else for the page's origin. The message itself
 * is never read.
 */
export function trustCommand(error: unknown, origin: string): string {
  const details = error instanceof ApiError ? (error.details as { origin?: unknown } | undefined) : undefined;
  return `cartridge-helper trust ${typeof details?.origin === 'string' ? details.origin : origin}`;
}

/**
 * The {text} of 'Error: {text}.' for a helper failure: the catalogued text of its code when the client
 * has one, else the helper's own message (it names the folder, the URL or what to do), else the code.
 */
export function helperErrorText(error: unknown): string {
  const shown = toDisplayError(error);
  const text = errorText(shown);
  if (text !== shown.code) return text;
  return error instanceof ApiError && error.message && error.message !== error.code ? error.message.replace(/\.$/, '') : text;
}
