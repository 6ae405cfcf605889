import { store_by_owner } from '../../../shared/i18n/paraglide/messages/store_by_owner.js';
import { store_description_empty } from '../../../shared/i18n/paraglide/messages/store_description_empty.js';
import { store_description_heading } from '../../../shared/i18n/paraglide/messages/store_description_heading.js';
import { store_third_party } from '../../../shared/i18n/paraglide/messages/store_third_party.js';
import { store_title } from '../../../shared/i18n/paraglide/messages/store_title.js';
import { MarkdownView } from '../../components/markdown-view.tsx';
import { useMemo, useState } from 'react';
import { homeCrumb, Page, usePageMetaContext, type Crumb } from '../../components/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../../components/states.tsx';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import { META_LOADING } from '../../lib/page-meta.ts';
import { toDisplayError } from '../../lib/errors.ts';
import { useInstance } from '../../lib/instance.ts';
import { trpc } from '../../lib/trpc.ts';
import type { StoreProject } from '../../../shared/schemas/store.ts';
import { descriptionSummary, storeProjectMeta } from '../../../shared/store/store-meta.ts';
import NotFound from '../not-found/not-found-page.tsx';
import type { ViewProps } from '../routes.ts';
import { StoreActions } from './store-actions.tsx';
import { StoreDownloads } from './store-downloads.tsx';
import { StoreGallery } from './store-gallery.tsx';
import { StoreInfo } from './store-info.tsx';
import { StoreMedia } from './store-media.tsx';
import { storeMetaTexts } from './store-meta-texts.ts';
import { StorePrimaryAction } from './store-primary-action.tsx';
import { StoreVersionNotes } from './store-version-notes.tsx';
import { useStoreOffers } from './use-store-offers.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { store_by_owner, store_description_empty, store_description_heading, store_third_party, store_title };

const storeCrumb = (): Crumb => ({ label: m.store_title(), href: '/store' });

/** The pitch under the title: the description's first paragraph, as the head's description says it. */
const pitchLength = 220;

/**
 * Spec §2 store/{project}: the public face of a project, for everyone signed in or not, laid out as a
 * game's page (issues 19 and 29; itch.io's and Steam's pages): the title and developer; the game (its
 * web build runs in the page) or the cover beside the pitch and the card of ways to play; the
 * screenshots right under them; the description, the version notes and "More information"; every
 * download folded at the end. No project frame: visitors see only what the store shows (public
 * branches), never the project's own pages.
 */
export default function StoreProjectPage({ params }: ViewProps) {
  const projectId = params.project ?? '';
  const query = trpc.store.project.useQuery({ project: projectId });
  // The head the server wrote for this page (issue 21), built the same way from the same data.
  const metaContext = usePageMetaContext();
  const meta = useMemo(() => (query.data ? storeProjectMeta(query.data, metaContext, storeMetaTexts()) : undefined), [query.data, metaContext]);
  if (query.error && toDisplayError(query.error).code === 'not_found') return <NotFound />;
  const project = query.data;
  if (!project) {
    return (
      <Page title={m.store_title()} meta={query.error ? undefined : META_LOADING} breadcrumb={[homeCrumb(), storeCrumb()]} pageClass="page_store_project">
        {query.error ? <ErrorState error={query.error} onRetry={() => void query.refetch()} /> : <LoadingState />}
      </Page>
    );
  }
  return (
    <Page title={project.title} meta={meta} breadcrumb={[homeCrumb(), storeCrumb(), { label: project.title }]} pageClass="page_store_project">
      <StoreProjectView project={project} />
    </Page>
  );
}

/** The page's parts as grid areas (store-project-page.css): two columns on wide screens, one on phones, in this order. */
function StoreProjectView({ project }: { project: StoreProject }) {
  const offers = useStoreOffers(project);
  // How often the visitor asked to play: each ask (Run game, the card's Play in browser) brings the game into view.
  const [plays, setPlays] = useState(0);
  const play = () => setPlays((count) => count + 1);
  const [downloadsOpen, setDownloadsOpen] = useState(false);
  const web = offers.offers.find((offer) => offer.kind === 'play');
  const game = web ? { branch: web.branch, pkg: web.pkg } : undefined;
  const pitch = useMemo(() => descriptionSummary(project.description.markdown, pitchLength), [project.description.markdown]);
  return (
    <div className="store_layout" data-media={game ? 'game' : project.media.cover ? 'cover' : 'none'}>
      <header className="store_header">
        <h1>
          <bdi>{project.title}</bdi>
        </h1>
        <p className="store_byline">{rich(m.store_by_owner({ owner: slot('owner') }), { owner: <bdi>{project.owner.title}</bdi> })}</p>
      </header>
      <StoreMedia project={project} game={game} plays={plays} onRun={play} />
      <div className="store_side">
        {pitch ? (
          <p className="store_pitch" lang={project.description.lang || undefined} dir="auto">
            {pitch}
          </p>
        ) : null}
        <StorePrimaryAction project={project} offers={offers} onPlay={play} onAllDownloads={() => setDownloadsOpen(true)} />
      </div>
      <StoreGallery title={project.title} screenshots={project.media.screenshots} />
      <StoreActions project={project} />
      <StoreInfo project={project} />
      <StoreDescription description={project.description} />
      <StoreVersionNotes project={project} />
      <ThirdPartyNotice />
      <StoreDownloads project={project} open={downloadsOpen} onOpenChange={setDownloadsOpen} />
    </div>
  );
}

function ThirdPartyNotice() {
  const { appName } = useInstance();
  return (
    <p className="notice store_third_party" role="note">
      {m.store_third_party({ appName })}
    </p>
  );
}

function StoreDescription({ description }: { description: StoreProject['description'] }) {
  return (
    <section className="section store_description" aria-labelledby="store-description">
      <h2 id="store-description">{m.store_description_heading()}</h2>
      {description.markdown.trim() ? (
        // The author's headings start below this section's h2.
        <MarkdownView markdown={description.markdown} lang={description.lang} images={description.images} headingOffset={2} />
      ) : (
        <EmptyState>{m.store_description_empty()}</EmptyState>
      )}
    </section>
  );
}
