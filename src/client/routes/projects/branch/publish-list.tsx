import { useId, type ReactNode } from 'react';
import { Link } from 'wouter';
import { branch_current } from '../../../../shared/i18n/paraglide/messages/branch_current.js';
import { branch_load_more } from '../../../../shared/i18n/paraglide/messages/branch_load_more.js';
import { branch_published } from '../../../../shared/i18n/paraglide/messages/branch_published.js';
import { EmptyState, ErrorState, LoadingState, type EmptyIcon } from '../../../components/states.tsx';
import { useLanguage } from '../../../lib/i18n/index.ts';
import { formatDateTime } from '../../../../shared/format/date.ts';
import { combinePages, type PageResult } from './paging.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { branch_current, branch_load_more, branch_published };

type PublishItem = { published: string; isCurrent: boolean };

/** Where one publish links to: its list key, link target and title. */
type PublishLink = { key: string; href: string; title: string };

type PublishListProps<T extends PublishItem> = {
  heading: ReactNode;
  empty: ReactNode;
  /** The empty state's drawing. */
  emptyIcon?: EmptyIcon;
  testId: string;
  /** The pages fetched so far, one per `usePublishCursors().befores` entry. */
  pages: PageResult<T>[];
  onLoadMore: (lastPublished: string) => void;
  linkOf: (item: T) => PublishLink;
};

/** A section listing publishes newest first, each with its current badge and time, and 'Load more'. */
export function PublishList<T extends PublishItem>({ heading, empty, emptyIcon, testId, pages, onLoadMore, linkOf }: PublishListProps<T>) {
  const headingId = useId();
  const { language } = useLanguage();
  const publishes = combinePages(pages);
  return (
    <section className="section" aria-labelledby={headingId}>
      <h2 id={headingId}>{heading}</h2>
      {publishes.isPending && !publishes.error ? <LoadingState /> : null}
      {!publishes.isPending && publishes.items.length === 0 && !publishes.error ? <EmptyState icon={emptyIcon}>{empty}</EmptyState> : null}
      {publishes.items.length > 0 ? (
        <ul className="item_list" aria-labelledby={headingId} data-testid={testId}>
          {publishes.items.map((item) => {
            const link = linkOf(item);
            return (
              <li key={link.key} className="item">
                <div className="item_main">
                  <Link href={link.href} className="item_title">
                    {link.title}
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
            );
          })}
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
              if (!publishes.isLoadingMore && publishes.lastPublished) onLoadMore(publishes.lastPublished);
            }}
          >
            {m.branch_load_more()}
          </button>
        </div>
      ) : null}
    </section>
  );
}
