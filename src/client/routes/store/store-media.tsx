import { store_cover_alt } from '../../../shared/i18n/paraglide/messages/store_cover_alt.js';
import { store_run_game } from '../../../shared/i18n/paraglide/messages/store_run_game.js';
import { imageSources } from '../../lib/content-image-sources.ts';
import type { StorePackage, StoreProject } from '../../../shared/schemas/store.ts';
import { CoverPlaceholder } from './store-card.tsx';
import { StoreGameFrame } from './store-game-frame.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { store_cover_alt, store_run_game };

type StoreBranch = StoreProject['branches'][number];
export type StoreGame = { branch: StoreBranch; pkg: StorePackage };

/**
 * The main column is at most 45rem wide (store-project-page.css: a 72rem page less its gutters, the
 * 22rem side column and the gap), the whole width less the gutters on narrow screens.
 */
const coverSizes = '(min-width: 72rem) 45rem, (min-width: 56rem) calc(100vw - 27rem), calc(100vw - 2rem)';

/**
 * The top of the page's main column: the game itself when the project has a web package (issue 29, as
 * itch.io's "Run game": the cover with a Run game button, the game in its frame once asked for, `plays`
 * counting the asks), else
 * the cover. Either way at most about half of the first screen (store-project-page.css).
 */
export function StoreMedia({ project, game, plays, onRun }: { project: StoreProject; game: StoreGame | undefined; plays: number; onRun: () => void }) {
  if (game && plays > 0) return <StoreGameFrame project={project} game={game} plays={plays} />;
  const cover = project.media.cover;
  if (!game) {
    if (!cover) return null;
    return (
      <div className="store_media store_cover">
        <CoverImage project={project} />
      </div>
    );
  }
  return (
    <div className="store_media store_cover store_game" data-state="idle">
      {cover ? <CoverImage project={project} /> : <CoverPlaceholder id={project.id} title={project.title} className="store_game_placeholder" />}
      <div className="store_game_start">
        <button type="button" className="button button_primary store_game_run" onClick={onRun}>
          <span aria-hidden="true" className="store_game_run_icon">
            ▶
          </span>
          {m.store_run_game()}
        </button>
        <p className="store_game_package">
          <bdi>{game.pkg.title}</bdi>
        </p>
      </div>
    </div>
  );
}

/**
 * The cover: the page's largest paint, so it is fetched at once and first (eager, fetchpriority high),
 * in the size the screen needs (the content image srcset rule), with its size known before it loads
 * (no layout shift).
 */
function CoverImage({ project }: { project: StoreProject }) {
  const cover = project.media.cover!;
  const sources = imageSources(cover);
  return (
    <img
      className="store_cover_image"
      src={cover.url}
      srcSet={sources.srcset}
      sizes={sources.widthDescriptors ? coverSizes : undefined}
      width={sources.width}
      height={sources.height}
      alt={m.store_cover_alt({ title: project.title })}
      loading="eager"
      fetchPriority="high"
    />
  );
}
