import { messageOf } from '../errors.ts';

export type FailureSummary = { code: 'cancelled' | 'download_failed' | 'unexpected_error'; message: string };

/** Codes of the engine's errors (src/shared/archive ArchiveError and the engine's own) that mean "the download did not work". */
const downloadCodes = new Set(['archive_fetch_failed', 'archive_ended', 'download_failed', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'ConnectionRefused', 'ConnectionClosed']);

/**
 * What a failed transition or repair tells the page (the workdir's error and error_code). A refused
 * download is usually an expired signed URL: the message asks for a fresh one (press Update/Install).
 */
export function summariseFailure(error: unknown, signal: AbortSignal, kind: 'transition' | 'repair'): FailureSummary {
  if (signal.aborted) return { code: 'cancelled', message: 'Cancelled: the old files are kept; press Update or Install again to resume' };
  const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : '';
  const status = typeof error === 'object' && error !== null && 'status' in error ? Number((error as { status: unknown }).status) : undefined;
  if (downloadCodes.has(code) || (error instanceof TypeError && /fetch|connect|network/i.test(error.message))) {
    const why = status ? `the server answered ${status}` : messageOf(error);
    const again = kind === 'repair' ? 'press Update or Install again (or repair from the page) to get a fresh download link' : 'press Update or Install again to get a fresh download link';
    return { code: 'download_failed', message: `The download failed (${why}); the link may have expired: ${again}` };
  }
  return { code: 'unexpected_error', message: messageOf(error) };
}
