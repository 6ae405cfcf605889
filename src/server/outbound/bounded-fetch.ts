import { readBoundedBytes } from '../../shared/bounded-body.ts';
/**
 * Calling third parties (sign-in providers, itch.io's API): every call gives up after a timeout, follows
 * no redirects and reads the answer up front within a size limit, so a hung or flooding service never
 * holds a request or fills memory. Knows no domain: callers turn its two failures into their own
 * refusals. Nothing here logs: URLs and bodies may carry codes, tokens or keys.
 */

/** Every call gives up after this long (a hung service must not hold a request forever). */
const outboundTimeoutMs = 10_000;
/** Token, profile and API answers are a few KB; more is refused rather than buffered. */
const maxAnswerBytes = 1024 * 1024;

/** No answer: unreachable, timed out, or the body broke off while read. */
export class OutboundUnavailable extends Error {
  override name = 'OutboundUnavailable';
  constructor() {
    super('the service did not answer');
  }
}

/** An answer whose body is larger than the limit. */
export class OutboundTooLarge extends Error {
  override name = 'OutboundTooLarge';
  constructor(readonly status: number) {
    super('answer too large');
  }
}

/**
 * fetch for outbound calls (also oauth4webapi's customFetch): a timeout, no redirects followed, and the
 * body read up front within the size limit. Throws OutboundUnavailable or OutboundTooLarge.
 */
export async function boundedFetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
  const timeout = AbortSignal.timeout(outboundTimeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'manual', signal });
  } catch {
    throw new OutboundUnavailable();
  }
  let body: Uint8Array | undefined;
  try {
    body = await readBoundedBytes(response.body, maxAnswerBytes);
  } catch {
    throw new OutboundUnavailable();
  }
  if (!body) throw new OutboundTooLarge(response.status);
  return new Response(response.status === 204 || response.status === 304 ? null : (body as Uint8Array<ArrayBuffer>), { status: response.status, statusText: response.statusText, headers: response.headers });
}

