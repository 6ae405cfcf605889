import { useState } from 'react';

/** Items per 'Load more' page of a publish list (branch history, branches of a version). */
export const publishPageSize = 20;

export type PageResult<T> = { data?: T[]; error: unknown; isPending: boolean; refetch: () => unknown };

/**
 * 'Load more' paging keyed by publish time: each page asks for items published strictly before the
 * last item of the page above. The first page has no `before`.
 */
export function usePublishCursors() {
  const [befores, setBefores] = useState<(string | undefined)[]>([undefined]);
  return { befores, loadMore: (lastPublished: string) => setBefores((list) => [...list, lastPublished]) };
}

/** The pages' items in order, with whether another page may exist. */
export function combinePages<T extends { published: string }>(pages: PageResult<T>[]) {
  const items = pages.flatMap((page) => page.data ?? []);
  const last = pages[pages.length - 1];
  const failed = pages.find((page) => page.error);
  return {
    items,
    /** The first page has not arrived yet. */
    isPending: pages[0]?.isPending ?? true,
    isLoadingMore: pages.length > 1 && (last?.isPending ?? false),
    error: failed?.error,
    retry: () => void failed?.refetch(),
    hasMore: last?.data !== undefined && last.data.length === publishPageSize,
    lastPublished: items[items.length - 1]?.published,
  };
}
