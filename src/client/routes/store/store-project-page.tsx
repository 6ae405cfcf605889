import { store_cover_alt } from '../../paraglide/messages/store_cover_alt.js';
import { store_description_empty } from '../../paraglide/messages/store_description_empty.js';
import { store_description_heading } from '../../paraglide/messages/store_description_heading.js';
import { store_third_party } from '../../paraglide/messages/store_third_party.js';
import { store_title } from '../../paraglide/messages/store_title.js';
import { MarkdownView } from '../../components/markdown-view.tsx';
import { useMemo } from 'react';
import { homeCrumb, Page, usePageMetaContext, type Crumb } from '../../components/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../../components/states.tsx';
import { imageSources } from '../../lib/content-image-sources.ts';
import { META_LOADING } from '../../lib/page-meta.ts';
import { toDisplayError } from '../../lib/errors.ts';
import { useInstance } from '../../lib/instance.ts';
import { trpc } from '../../lib/trpc.ts';
import type { StoreProject } from '../../../shared/schemas/store.ts';
import { storeProjectMeta } from '../../../shared/store/store-meta.ts';
import NotFound from '../not-found/not-found-page.tsx';
import type { ViewProps } from '../routes.ts';
import { StoreActions } from './store-actions.tsx';
import { StoreBranches } from './store-branches.tsx';
import { StoreGallery } from './store-gallery.tsx';
import { StoreOwner } from './store-owner.tsx';
import { storeMetaTexts } from './store-meta-texts.ts';
import { StorePrimaryAction } from './store-primary-action.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { store_cover_alt, store_description_empty, store_description_heading, store_third_party, store_title };

const storeCrumb = (): Crumb => ({ label: m.store_title(), href: '/store' });

/**
 * Spec §2 store/{project}: the public face of a project, for everyone signed in or not, laid out as a
 * game's page (issue 19): the cover, the title with the developer and their public accounts, the
 * action chosen for the visitor's system, every package, the screenshots, then the description. No
 * project frame: visitors see only what the store shows (public branches), never the project's own pages.
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
      <StoreCover project={project} />
      <div className="store_intro">
        <div className="store_header">
          <h1>
            <bdi>{project.title}</bdi>
          </h1>
          <StoreOwner owner={project.owner} />
          <StoreActions project={project} />
        </div>
        <StorePrimaryAction project={project} />
      </div>
      <ThirdPartyNotice />
      <StoreBranches projectId={project.id} projectTitle={project.title} branches={project.branches} />
      <StoreGallery title={project.title} screenshots={project.media.screenshots} />
      <StoreDescription description={project.description} />
    </Page>
  );
}

/** The store page is at most 72rem wide with 1.5rem on each side (store-project-page.css); the cover fills it. */
const coverSizes = '(min-width: 72rem) 69rem, calc(100vw - 2rem)';

/**
 * The cover, wide across the top: the page's largest paint, so it is fetched at once and first (eager,
 * fetchpriority high), in the size the screen needs (the content image srcset rule), with its size
 * known before it loads (no layout shift).
 */
function StoreCover({ project }: { project: StoreProject }) {
  const cover = project.media.cover;
  if (!cover) return null;
  const sources = imageSources(cover);
  return (
    <div className="store_cover">
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
