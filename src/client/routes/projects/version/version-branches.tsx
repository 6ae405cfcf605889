import { useId } from 'react';
import { Link } from 'wouter';
import { branch_current } from '../../../paraglide/messages/branch_current.js';
import { branch_load_more } from '../../../paraglide/messages/branch_load_more.js';
import { branch_published } from '../../../paraglide/messages/branch_published.js';
import { version_branches_empty } from '../../../paraglide/messages/version_branches_empty.js';
import { version_branches_heading } from '../../../paraglide/messages/version_branches_heading.js';
import { EmptyState, ErrorState, LoadingState } from '../../../components/states.tsx';
import { useLanguage } from '../../../lib/i18n/index.ts';
import { trpc } from '../../../lib/trpc.ts';
import { formatDateTime } from '../../../../shared/format/date.ts';
import { branchHref } from '../links.ts';
import { combinePages, publishPageSize, usePublishCursors } from '../branch/paging.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { branch_current, branch_load_more, branch_published, version_branches_empty, version_branches_heading };

/** 'Branches it is in': every publish of the version, newest first, with 'Load more'. */
export function VersionBranches({ projectId, versionId }: { projectId: string; versionId: string }) {
  const headingId = useId();
  const { language } = useLanguage();
  const cursors = usePublishCursors();
  const pages = trpc.useQueries((t) => cursors.befores.map((before) => t.projects.versions.branches({ project: projectId, version: versionId, before, count: publishPageSize })));
  const publishes = combinePages(pages);
  return (
    <section className="section" aria-labelledby={headingId}>
      <h2 id={headingId}>{m.version_branches_heading()}</h2>
      {publishes.isPending && !publishes.error ? <LoadingState /> : null}
      {!publishes.isPending && publishes.items.length === 0 && !publishes.error ? <EmptyState>{m.version_branches_empty()}</EmptyState> : null}
      {publishes.items.length > 0 ? (
        <ul className="item_list" aria-labelledby={headingId} data-testid="version-branches">
          {publishes.items.map((item) => (
            <li key={`${item.branchId}-${item.published}`} className="item">
              <div className="item_main">
                <Link href={branchHref(projectId, item.branchId)} className="item_title">
                  {item.branchTitle}
                </Link>
                {item.isCurrent ? <span className="badge badge_current">{m.branch_current()}</span> : null}
                <dl className="item_facts">
                  <div>
                    <dt>{m.branch_published()}</dt>
                    <dd>
                      <time dateTime={item.published}>{formatDateTime(item.published, language)}</time>
                    </dd>
                  </div>
                </dl>
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      {publishes.error ? <ErrorState error={publishes.error} onRetry={publishes.retry} /> : null}
      {publishes.hasMore || publishes.isLoadingMore ? (
        <div className="actions">
          <button
            type="button"
            className="button"
            aria-disabled={publishes.isLoadingMore ? true : undefined}
            onClick={() => {
              if (!publishes.isLoadingMore && publishes.lastPublished) cursors.loadMore(publishes.lastPublished);
            }}
          >
            {m.branch_load_more()}
          </button>
        </div>
      ) : null}
    </section>
  );
}
