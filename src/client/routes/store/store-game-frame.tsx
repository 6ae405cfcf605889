import { useEffect, useRef } from 'react';
import { Link } from 'wouter';
import { store_game_own_page } from '../../../shared/i18n/paraglide/messages/store_game_own_page.js';
import { PlayFrame } from '../../components/play-frame.tsx';
import { ErrorState, LoadingState } from '../../components/states.tsx';
import { trpc } from '../../lib/trpc.ts';
import type { StoreProject } from '../../../shared/schemas/store.ts';
import { storePlayHref } from '../projects/links.ts';
import { playUrlQueryOptions, refreshStalePlayUrl } from '../projects/package/play-view.tsx';
import type { StoreGame } from './store-media.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { store_game_own_page };

/**
 * A web package running in the store page (issue 29): the play page's frame (components/play-frame.tsx:
 * the play origin's signed URL, the same sandbox and permissions, Reset and Fullscreen), in the page's
 * main column, with the way to the play page of its own. The play URL is asked for only now, once per
 * visit (a refetch would restart the game). The frame comes into view and takes the focus when it
 * loads and on each further ask to play (`plays`), so the keyboard plays.
 */
export function StoreGameFrame({ project, game, plays }: { project: Pick<StoreProject, 'id'>; game: StoreGame; plays: number }) {
  const playUrl = trpc.play.storePackageUrl.useQuery({ project: project.id, branch: game.branch.id, package: game.pkg.id }, playUrlQueryOptions);
  const ref = useRef<HTMLDivElement>(null);
  const url = playUrl.data?.url;
  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    box.scrollIntoView?.({ block: 'nearest' });
    // While the URL loads the box holds the focus the Run game button had.
    (box.querySelector<HTMLIFrameElement>('iframe') ?? box).focus();
  }, [url, plays]);
  const header = (
    <div className="store_game_header">
      <p className="store_game_title">
        <bdi>{game.pkg.title}</bdi>
      </p>
      <Link href={storePlayHref(project.id, game.branch.id, game.pkg.id)} className="store_game_own_page">
        {m.store_game_own_page()}
      </Link>
    </div>
  );
  return (
    <div ref={ref} className="store_media store_game" data-state="running" tabIndex={-1}>
      {url ? (
        <PlayFrame url={url} title={game.pkg.title} onReset={refreshStalePlayUrl(playUrl)} header={header} />
      ) : (
        <>
          {header}
          <div className="store_game_wait">{playUrl.error ? <ErrorState error={playUrl.error} onRetry={() => void playUrl.refetch()} /> : <LoadingState />}</div>
        </>
      )}
    </div>
  );
}
