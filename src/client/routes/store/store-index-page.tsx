import { keepPreviousData } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'wouter';
import { store_index_clear } from '../../../shared/i18n/paraglide/messages/store_index_clear.js';
import { store_index_empty } from '../../../shared/i18n/paraglide/messages/store_index_empty.js';
import { store_index_intro } from '../../../shared/i18n/paraglide/messages/store_index_intro.js';
import { store_index_list_label } from '../../../shared/i18n/paraglide/messages/store_index_list_label.js';
import { store_index_more } from '../../../shared/i18n/paraglide/messages/store_index_more.js';
import { store_index_no_match } from '../../../shared/i18n/paraglide/messages/store_index_no_match.js';
import { store_index_results } from '../../../shared/i18n/paraglide/messages/store_index_results.js';
import { store_index_search_hint } from '../../../shared/i18n/paraglide/messages/store_index_search_hint.js';
import { store_index_search_label } from '../../../shared/i18n/paraglide/messages/store_index_search_label.js';
import { store_index_searching } from '../../../shared/i18n/paraglide/messages/store_index_searching.js';
import { store_title } from '../../../shared/i18n/paraglide/messages/store_title.js';
import { homeCrumb, Page, usePageMetaContext } from '../../components/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../../components/states.tsx';
import { useInstance } from '../../lib/instance.ts';
import { useLanguage } from '../../lib/i18n/react.tsx';
import { trpc } from '../../lib/trpc.ts';
import { simplePageMeta } from '../../../shared/store/page-meta.ts';
import { StoreCard } from './store-card.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  store_index_clear,
  store_index_empty,
  store_index_intro,
  store_index_list_label,
  store_index_more,
  store_index_no_match,
  store_index_results,
  store_index_search_hint,
  store_index_search_label,
  store_index_searching,
  store_title,
};

/** The search waits for a pause in typing this long before it asks the server and changes the address. */
export const searchDebounceMs = 300;
/** Projects per page: three rows of four on a wide screen. */
export const storePageSize = 24;
/** The URL query parameter holding the search (shareable, kept across a reload). */
const searchParam = 'q';

/**
 * /store, the store index (issue 19): public projects with a public branch as a grid of covers (title,
 * developer, platforms, last update), sorted by the reader's language (its collator, on the server),
 * searched as one types (debounced; the words live in the address, ?q=, so a search can be shared and
 * survives a reload), a page at a time ('Show more', following the server's cursor).
 */
export default function StoreIndexPage() {
  const { appName } = useInstance();
  // The head the server writes for /store (issue 21): canonical without the search, which stays in the address.
  const metaContext = usePageMetaContext();
  const meta = useMemo(() => simplePageMeta('/store', m.store_title(), m.store_index_intro({ appName }), metaContext), [appName, metaContext]);
  const { language } = useLanguage();
  const [params, setParams] = useSearchParams();
  const urlQuery = params.get(searchParam) ?? '';
  const [typed, setTyped] = useState(urlQuery);
  const searchId = useId();
  const hintId = useId();
  const lastSent = useRef(urlQuery);

  // The address changed from outside (back, forward, a link): the box shows it.
  useEffect(() => {
    if (urlQuery !== lastSent.current) {
      lastSent.current = urlQuery;
      setTyped(urlQuery);
    }
  }, [urlQuery]);

  // Typing: after a pause, the search goes into the address (replacing the entry: one per search, not per key).
  useEffect(() => {
    const words = typed.trim();
    if (words === lastSent.current) return;
    const timer = setTimeout(() => {
      lastSent.current = words;
      setParams((current) => {
        const next = new URLSearchParams(current);
        if (words) next.set(searchParam, words);
        else next.delete(searchParam);
        return next;
      }, { replace: true });
    }, searchDebounceMs);
    return () => clearTimeout(timer);
  }, [typed, setParams]);

  const query = urlQuery.trim();
  const index = trpc.store.index.useInfiniteQuery(
    { query: query || undefined, lang: language, count: storePageSize },
    { getNextPageParam: (last) => last.next ?? undefined, placeholderData: keepPreviousData, staleTime: 30_000 },
  );
  // A page that failed to load: the next one (Retry asks for it again), or the first of a search (the grid goes).
  const moreFailed = index.isFetchNextPageError;
  const loadFailed = index.isError && !moreFailed;
  const items = loadFailed ? [] : (index.data?.pages.flatMap((page) => page.items) ?? []);
  const total = index.data?.pages[0]?.total ?? 0;
  const searching = index.isPlaceholderData || typed.trim() !== query;

  // 'Show more': the first new card's link takes focus, so a keyboard user goes on from there.
  const list = useRef<HTMLUListElement>(null);
  const focusFrom = useRef<number | null>(null);
  useEffect(() => {
    const from = focusFrom.current;
    if (from === null || items.length <= from) return;
    focusFrom.current = null;
    list.current?.querySelectorAll<HTMLAnchorElement>('.store_card_link')[from]?.focus();
  }, [items.length]);

  return (
    <Page title={m.store_title()} meta={meta} breadcrumb={[homeCrumb(), { label: m.store_title() }]} pageClass="page_store_index">
      <div className="store_index_head">
        <div>
          <h1>{m.store_title()}</h1>
          <p className="store_index_intro">{m.store_index_intro({ appName })}</p>
        </div>
        <div role="search" className="store_index_search">
          <label htmlFor={searchId} className="store_index_search_label">
            {m.store_index_search_label()}
          </label>
          <input
            id={searchId}
            className="input store_index_search_input"
            type="search"
            value={typed}
            maxLength={100}
            autoComplete="off"
            spellCheck={false}
            enterKeyHint="search"
            aria-describedby={hintId}
            onChange={(event) => setTyped(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape' && typed) {
                event.preventDefault();
                setTyped('');
              }
            }}
          />
          <span id={hintId} className="visually_hidden">
            {m.store_index_search_hint()}
          </span>
        </div>
      </div>
      {/* Read out when the results change: how many match, or that a search is under way. */}
      <p className="store_index_status" role="status" aria-live="polite">
        {index.data && !loadFailed ? (searching ? m.store_index_searching() : m.store_index_results({ count: String(total) })) : ''}
      </p>
      {index.isPending ? <LoadingState /> : null}
      {loadFailed ? <ErrorState error={index.error} onRetry={() => void index.refetch()} /> : null}
      {index.data && !loadFailed && items.length === 0 ? (
        query ? (
          <EmptyState
            action={
              <button type="button" className="button" onClick={() => setTyped('')}>
                {m.store_index_clear()}
              </button>
            }
          >
            {m.store_index_no_match({ query })}
          </EmptyState>
        ) : (
          <EmptyState>{m.store_index_empty()}</EmptyState>
        )
      ) : null}
      {items.length > 0 ? (
        <ul ref={list} className="store_grid" aria-label={m.store_index_list_label()} aria-busy={searching || undefined} data-searching={searching || undefined}>
          {items.map((item, position) => (
            <StoreCard key={item.id} item={item} eager={position < 4} />
          ))}
        </ul>
      ) : null}
      {moreFailed ? <ErrorState error={index.error} onRetry={() => void index.fetchNextPage()} /> : null}
      {index.hasNextPage && !searching && !moreFailed ? (
        <div className="store_index_more">
          <button
            type="button"
            className="button"
            aria-busy={index.isFetchingNextPage || undefined}
            aria-disabled={index.isFetchingNextPage || undefined}
            onClick={() => {
              if (index.isFetchingNextPage) return;
              focusFrom.current = items.length;
              void index.fetchNextPage();
            }}
          >
            {m.store_index_more()}
          </button>
        </div>
      ) : null}
    </Page>
  );
}
