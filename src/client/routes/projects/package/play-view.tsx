import type { ReactNode } from 'react';
import { package_page_status_pending } from '../../../../shared/i18n/paraglide/messages/package_page_status_pending.js';
import { play_page_not_web } from '../../../../shared/i18n/paraglide/messages/play_page_not_web.js';
import { play_page_title } from '../../../../shared/i18n/paraglide/messages/play_page_title.js';
import { PlayFrame } from '../../../components/play-frame.tsx';
import { ErrorState, LoadingState } from '../../../components/states.tsx';
import { rich, slot } from '../../../lib/i18n/rich.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { package_page_status_pending, play_page_not_web, play_page_title };

type PlayUrlQuery = { data?: { url: string }; dataUpdatedAt: number; error: unknown; refetch: () => unknown };

/** 'Play {title}', the package title isolated (it may start with a version number). */
function PlayTitle({ title }: { title: string }) {
  return <h1>{rich(m.play_page_title({ title: slot('title') }), { title: <bdi>{title}</bdi> })}</h1>;
}

/** Signed play URLs last about an hour; a Reset after half of that starts from a fresh one. */
const PLAY_URL_FRESH_MS = 30 * 60_000;

/** What a frame's Reset does first: a play URL older than PLAY_URL_FRESH_MS is fetched again. */
export function refreshStalePlayUrl(query: Pick<PlayUrlQuery, 'dataUpdatedAt' | 'refetch'>): () => void {
  return () => (Date.now() - query.dataUpdatedAt > PLAY_URL_FRESH_MS ? void query.refetch() : undefined);
}

/** Play URLs are fetched once per visit: a refetch would change the frame's address and restart the game. */
export const playUrlQueryOptions = { staleTime: Number.POSITIVE_INFINITY, refetchOnWindowFocus: false, refetchOnReconnect: false } as const;

/** The body of both play pages: heading, a way back, then the game (or why there is none). */
export function PlayView({ title, query, back, notReady }: { title: string; query: PlayUrlQuery; back: ReactNode; notReady?: boolean }) {
  const header = (
    <div className="play_header">
      <PlayTitle title={title} />
      {back}
    </div>
  );
  if (!notReady && query.data) {
    return <PlayFrame url={query.data.url} title={title} onReset={refreshStalePlayUrl(query)} header={header} />;
  }
  return (
    <>
      {header}
      {notReady ? (
        <p className="notice" role="status">
          {m.package_page_status_pending()}
        </p>
      ) : query.error ? (
        <ErrorState error={query.error} onRetry={() => void query.refetch()} />
      ) : (
        <LoadingState />
      )}
    </>
  );
}

/** A package without os:web: nothing to start here. */
export function NotPlayable({ title, back }: { title: string; back: ReactNode }) {
  return (
    <>
      <div className="play_header">
        <PlayTitle title={title} />
        {back}
      </div>
      <p className="notice play_not_web" role="status" data-testid="play-not-web">
        {m.play_page_not_web()}
      </p>
    </>
  );
}
