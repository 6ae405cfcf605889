import type { ArchiveAdapters } from '../adapters.ts';
import { ArchiveError } from '../errors.ts';

/**
 * The HTTP requests of an archive read over the network (the companion app's updates, the cloud-play
 * agent's chunk cache): one GET, with a Range header or without, whose failures become ArchiveErrors
 * that name the URL without its signature; and the check that a 206 reply holds the bytes asked for.
 * Web-standard APIs only (fetch, streams), so Node, Bun and browsers can all use it. A server that
 * ignores Range answers 200 with the whole archive; callers read it from the start. Hashing and zstd
 * go through the archive adapters (RemoteOptions.adapters).
 */
export type RemoteFetch = (url: string, init?: RequestInit) => Promise<Response>;

/** What went over the network; callers pass one object and read it afterwards. */
export type RemoteStats = {
  /** HTTP requests made. */
  requests: number;
  /** Body bytes received (index and chunk data, gaps included). */
  bytesFetched: number;
};

export type RemoteOptions = {
  fetch?: RemoteFetch;
  signal?: AbortSignal;
  adapters?: ArchiveAdapters;
  stats?: RemoteStats;
};

export function fetchFailed(url: string, status: number, cause?: unknown): ArchiveError {
  return new ArchiveError('archive_fetch_failed', `fetching ${redactUrl(url)} ${status === 0 ? 'failed' : `answered ${status}`}`, {
    status,
    cause,
  });
}

/** A URL without its query and with a signed path's last segments shortened (for messages and logs). */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.split('/').slice(0, 4).join('/')}/…`;
  } catch {
    return '(invalid URL)';
  }
}

export async function request(url: string, range: string | undefined, options: RemoteOptions): Promise<Response> {
  const fetcher = options.fetch ?? ((input: string, init?: RequestInit) => fetch(input, init));
  options.signal?.throwIfAborted();
  let response: Response;
  try {
    response = await fetcher(url, { headers: range === undefined ? {} : { range }, signal: options.signal });
  } catch (error) {
    options.signal?.throwIfAborted();
    throw fetchFailed(url, 0, error);
  }
  if (options.stats) options.stats.requests += 1;
  if (response.status !== 200 && response.status !== 206) {
    await response.body?.cancel().catch(() => undefined);
    throw fetchFailed(url, response.status);
  }
  if (response.body === null) throw new ArchiveError('archive_ended', 'the archive answered without a body');
  return response;
}

/**
 * Checks a 206 reply names the bytes asked for (or fewer, when the archive ends before `end`); returns
 * the archive's total size when the reply gives it.
 */
export async function checkContentRange(response: Response, start: number, end: number): Promise<number | undefined> {
  const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('content-range') ?? '');
  const first = Number(match?.[1]);
  const last = Number(match?.[2]);
  const total = match?.[3] === '*' ? undefined : Number(match?.[3]);
  const exact = match !== null && first === start && last === end - 1;
  const endsEarly = match !== null && first === start && last < end - 1 && total !== undefined && last === total - 1;
  if (!exact && !endsEarly) {
    await response.body?.cancel().catch(() => undefined);
    throw new ArchiveError('archive_fetch_failed', `the archive answered another range (${response.headers.get('content-range')}) for ${start}-${end - 1}`, {
      status: 206,
    });
  }
  return total;
}
