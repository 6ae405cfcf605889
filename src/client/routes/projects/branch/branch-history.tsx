import { useId } from 'react';
import { Link } from 'wouter';
import { branch_current } from '../../../paraglide/messages/branch_current.js';
import { branch_history_empty } from '../../../paraglide/messages/branch_history_empty.js';
import { branch_history_heading } from '../../../paraglide/messages/branch_history_heading.js';
import { branch_load_more } from '../../../paraglide/messages/branch_load_more.js';
import { branch_published } from '../../../paraglide/messages/branch_published.js';
import { EmptyState, ErrorState, LoadingState } from '../../../components/states.tsx';
import { useLanguage } from '../../../lib/i18n/index.ts';
import { trpc } from '../../../lib/trpc.ts';
import { formatDateTime } from '../../../../shared/format/date.ts';
import { versionHref } from '../links.ts';
import { combinePages, publishPageSize, usePublishCursors } from './paging.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { branch_current, branch_history_empty, branch_history_heading, branch_load_more, branch_published };

/** The branch's publishes, newest first, 'Load more' by publish time. */
export function BranchHistory({ projectId, branchId }: { projectId: string; branchId: string }) {
  const headingId = useId();
  const { language } = useLanguage();
  const cursors = usePublishCursors();
  const pages = trpc.useQueries((t) => cursors.befores.map((before) => t.projects.versions.history({ project: projectId, branch: branchId, before, count: publishPageSize })));
  const history = combinePages(pages);
  return (
    <section className="section" aria-labelledby={headingId}>
      <h2 id={headingId}>{m.branch_history_heading()}</h2>
      {history.isPending && !history.error ? <LoadingState /> : null}
      {!history.isPending && history.items.length === 0 && !history.error ? <EmptyState>{m.branch_history_empty()}</EmptyState> : null}
      {history.items.length > 0 ? (
        <ul className="item_list" aria-labelledby={headingId} data-testid="branch-history">
          {history.items.map((item) => (
            <li key={`${item.id}-${item.published}`} className="item">
              <div className="item_main">
                <Link href={versionHref(projectId, item.id, branchId)} className="item_title">
                  {item.title}
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
      {history.error ? <ErrorState error={history.error} onRetry={history.retry} /> : null}
      {history.hasMore || history.isLoadingMore ? (
        <div className="actions">
          <button
            type="button"
            className="button"
            aria-disabled={history.isLoadingMore ? true : undefined}
            onClick={() => {
              if (!history.isLoadingMore && history.lastPublished) cursors.loadMore(history.lastPublished);
            }}
          >
            {m.branch_load_more()}
          </button>
        </div>
      ) : null}
    </section>
  );
}
