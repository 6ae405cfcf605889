import { store_description_empty } from '../../paraglide/messages/store_description_empty.js';
import { store_description_heading } from '../../paraglide/messages/store_description_heading.js';
import { store_third_party } from '../../paraglide/messages/store_third_party.js';
import { store_title } from '../../paraglide/messages/store_title.js';
import { MarkdownView } from '../../components/markdown-view.tsx';
import { homeCrumb, Page, type Crumb } from '../../components/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../../components/states.tsx';
import { toDisplayError } from '../../lib/errors.ts';
import { useInstance } from '../../lib/instance.ts';
import { trpc } from '../../lib/trpc.ts';
import type { StoreProject } from '../../../shared/schemas/store.ts';
import NotFound from '../not-found/not-found-page.tsx';
import type { ViewProps } from '../routes.ts';
import { StoreActions } from './store-actions.tsx';
import { StoreBranches } from './store-branches.tsx';
import { StoreOwner } from './store-owner.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { store_description_empty, store_description_heading, store_third_party, store_title };

const storeCrumb = (): Crumb => ({ label: m.store_title(), href: '/store' });

/**
 * Spec §2 store/{project}: the public face of a project, for everyone signed in or not. No project
 * frame: visitors see only what the store shows (public branches), never the project's own pages.
 */
export default function StoreProjectPage({ params }: ViewProps) {
  const projectId = params.project ?? '';
  const query = trpc.store.project.useQuery({ project: projectId });
  if (query.error && toDisplayError(query.error).code === 'not_found') return <NotFound />;
  const project = query.data;
  if (!project) {
    return (
      <Page title={m.store_title()} breadcrumb={[homeCrumb(), storeCrumb()]} pageClass="page_store_project">
        {query.error ? <ErrorState error={query.error} onRetry={() => void query.refetch()} /> : <LoadingState />}
      </Page>
    );
  }
  return (
    <Page title={project.title} breadcrumb={[homeCrumb(), storeCrumb(), { label: project.title }]} pageClass="page_store_project">
      <div className="store_header">
        <h1>
          <bdi>{project.title}</bdi>
        </h1>
        <StoreActions project={project} />
      </div>
      <ThirdPartyNotice />
      <StoreOwner owner={project.owner} />
      <StoreDescription description={project.description} />
      <StoreBranches projectId={project.id} projectTitle={project.title} branches={project.branches} />
    </Page>
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
