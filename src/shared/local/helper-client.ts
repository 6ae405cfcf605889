import { ApiError } from '../api/errors.ts';
import {
  LOCAL_HELPER_PORT,
  localHelperFailureSchema,
  localHelperMethods,
  type LocalHelperInput,
  type LocalHelperMethod,
  type LocalHelperReply,
} from '../schemas/local-helper.ts';

export type LocalHelperClientOptions = {
  /** Default http://127.0.0.1:17303 (spec §9). */
  baseUrl?: string;
  fetch?: typeof fetch;
};

/**
 * The page's door to the local companion app (spec §7): POST with the method in the query and a JSON
 * body. A refusal throws an ApiError carrying the helper's code and its parsed body (spec: "failure
 * throws the parsed body"); no answer at all throws ApiError('network') — the app is not running.
 */
export function createLocalHelperClient(options: LocalHelperClientOptions = {}) {
  const baseUrl = (options.baseUrl ?? `http://127.0.0.1:${LOCAL_HELPER_PORT}`).replace(/\/+$/, '');
  const fetchFn = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));

  async function call<M extends LocalHelperMethod>(method: M, input: LocalHelperInput<M>, signal?: AbortSignal): Promise<LocalHelperReply<M>> {
    let response: Response;
    try {
      response = await fetchFn(`${baseUrl}/?method=${encodeURIComponent(method)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(input),
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw new ApiError('request_aborted', 'Request aborted', { cause: error, request: `helper ${method}` });
      throw new ApiError('network', 'The local app did not answer', { cause: error, request: `helper ${method}` });
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON: kept as text.
    }
    if (!response.ok) {
      const failure = localHelperFailureSchema.safeParse(body);
      if (failure.success) {
        throw new ApiError(failure.data.code, failure.data.message, {
          status: response.status,
          statusText: response.statusText,
          details: failure.data.details,
          body,
          request: `helper ${method}`,
          retryable: false,
        });
      }
      throw new ApiError(`http_${response.status}`, `The local app answered ${response.status}`, { status: response.status, body, request: `helper ${method}` });
    }
    const reply = localHelperMethods[method].reply.safeParse(body);
    if (!reply.success) throw new ApiError('unexpected_error', 'The local app answered something unexpected', { body, request: `helper ${method}` });
    return reply.data as LocalHelperReply<M>;
  }

  return { baseUrl, call };
}

export type LocalHelperClient = ReturnType<typeof createLocalHelperClient>;
