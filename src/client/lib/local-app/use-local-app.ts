import { useQueries, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useSyncExternalStore } from 'react';
import {
  LOCAL_HELPER_POLL_MS,
  LOCAL_HELPER_PROTOCOL,
  type TransitionProgress,
  type VersionReply,
  type Workdir,
  type Workspace,
} from '../../../shared/schemas/local-helper.ts';
import { callHelper, helperErrorCode, LOCAL_APP_UNREACHABLE, trustCommand } from './helper.ts';

/**
 * The local companion app as the page sees it (spec §2 'local', §4 install flow, §6 "Install, Launch,
 * Update need the local app connected"):
 *
 * - connection: `version` answered (connected; a helper of another protocol is `outdated`), nothing
 *   answered (`not_detected`: the shared client's 'network'), or the helper refused this site
 *   (`not_trusted`, with the command that trusts it). Asked again on Retry, when the window gets focus
 *   (the player may have just started it) and when a list call finds it gone.
 * - probing: /local always asks; the other pages (package and store pages) only in a browser where the
 *   app has answered before (LOCAL_APP_SEEN_KEY). A visitor who never set the app up is not probed on
 *   every package page: no request to a loopback port they did not ask for (browsers log each refused
 *   one as an error, and may ask for a local-network permission). Until a probe has answered or failed
 *   the connection is `not_checked` ("not detected yet"), never `not_detected`; check() probes at once.
 * - the workspaces (root folders) and workdirs (installed packages), TanStack Query data refetched after
 *   every action (invalidateLocalApp).
 * - transitions: `transition_status {id}` of each workdir that is installing or that this page just
 *   started something on, asked every LOCAL_HELPER_POLL_MS (spec §9: 1000 ms) while it returns a value;
 *   when it stops, the workdir list is fetched again (the state changed).
 */

export type LocalAppConnection =
  /** Not asked yet: a page other than /local in a browser where the app never answered (check() asks). */
  | { status: 'not_checked' }
  | { status: 'checking' }
  | { status: 'connected'; version: VersionReply }
  | { status: 'not_detected' }
  | { status: 'not_trusted'; command: string }
  | { status: 'outdated'; version: VersionReply }
  | { status: 'error'; error: unknown };

/** Set once the local app answered in this browser (or refused this site): other pages than /local then ask it too. */
export const LOCAL_APP_SEEN_KEY = 'local_app_seen';

function seenBefore(): boolean {
  try {
    return localStorage.getItem(LOCAL_APP_SEEN_KEY) === '1';
  } catch {
    return false;
  }
}

function rememberSeen(): void {
  try {
    localStorage.setItem(LOCAL_APP_SEEN_KEY, '1');
  } catch {
    // Storage refused: the package pages just do not ask by themselves.
  }
}

const localAppKeys = {
  all: ['local-helper'] as const,
  version: ['local-helper', 'version'] as const,
  workspaces: ['local-helper', 'workspace_list'] as const,
  workdirs: ['local-helper', 'workdir_list'] as const,
  progress: (id: string) => ['local-helper', 'transition_status', id] as const,
};

/** What the page started on a workdir: the action that shows its percent. */
export type TransitionKind = 'install' | 'update' | 'repair';

// Workdirs this page started a transition or repair on: polled even before the list says installing
// (a repair does not change the state) and until their transition_status answers null.
const watched = new Set<string>();
const kinds = new Map<string, TransitionKind>();
let watchedSnapshot: readonly string[] = [];
const watchers = new Set<() => void>();

function setWatched(change: () => void): void {
  change();
  watchedSnapshot = [...watched].sort();
  for (const notify of watchers) notify();
}

/** Follows the transition of a workdir (after workdir_transition or workdir_repair). */
function watchTransition(id: string, kind: TransitionKind): void {
  kinds.set(id, kind);
  if (!watched.has(id)) setWatched(() => watched.add(id));
}

function unwatchTransition(id: string): void {
  kinds.delete(id);
  if (watched.has(id)) setWatched(() => watched.delete(id));
}

/** What this page started on the workdir, if it did (a transition found running is an install's). */
export function transitionKindOf(id: string): TransitionKind | undefined {
  return kinds.get(id);
}

function useWatched(): readonly string[] {
  return useSyncExternalStore(
    (notify) => {
      watchers.add(notify);
      return () => watchers.delete(notify);
    },
    () => watchedSnapshot,
  );
}

/** After an action: the lists again (and the transition it started followed). */
export async function invalidateLocalApp(queryClient: QueryClient, started?: { id: string; kind: TransitionKind }): Promise<void> {
  if (started) watchTransition(started.id, started.kind);
  await Promise.all([queryClient.invalidateQueries({ queryKey: localAppKeys.workdirs }), queryClient.invalidateQueries({ queryKey: localAppKeys.workspaces })]);
}

function connectionOf(query: { data?: VersionReply; error: unknown; isPending: boolean }, origin: string): LocalAppConnection {
  if (query.data) {
    return Math.trunc(query.data.protocol) === LOCAL_HELPER_PROTOCOL ? { status: 'connected', version: query.data } : { status: 'outdated', version: query.data };
  }
  if (query.error) {
    const code = helperErrorCode(query.error);
    if (code === LOCAL_APP_UNREACHABLE) return { status: 'not_detected' };
    if (code === 'not_trusted') return { status: 'not_trusted', command: trustCommand(query.error, origin) };
    return { status: 'error', error: query.error };
  }
  return { status: 'checking' };
}

export type LocalApp = {
  connection: LocalAppConnection;
  connected: boolean;
  /** Asks the helper again (the Retry of the warnings). */
  retry(): void;
  /** Probes the helper now, also where this page would not by itself (the package pages' Check again). */
  check(): void;
  workspaces: { data: Workspace[] | undefined; error: unknown; refetch(): void };
  workdirs: { data: Workdir[] | undefined; error: unknown; refetch(): void };
  /** The running transition of a workdir (install, update or repair), if any. */
  progressOf(workdirId: string): TransitionProgress | undefined;
};

/**
 * The page's view of the local app; every component using it shares the same queries. `probe`: ask the
 * app even in a browser where it never answered (/local); by default only where it did.
 */
export function useLocalApp(options: { lists?: boolean; probe?: boolean } = {}): LocalApp {
  const queryClient = useQueryClient();
  const origin = typeof location === 'undefined' ? '' : location.origin;
  const probe = options.probe ?? seenBefore();
  const version = useQuery({
    queryKey: localAppKeys.version,
    queryFn: async ({ signal }) => {
      try {
        const reply = await callHelper('version', {}, signal);
        rememberSeen();
        return reply;
      } catch (error) {
        // It runs, refusing this site: the package pages say so too from now on.
        if (helperErrorCode(error) === 'not_trusted') rememberSeen();
        throw error;
      }
    },
    enabled: probe,
    retry: false,
    staleTime: 15_000,
    refetchOnWindowFocus: true,
  });
  const unasked = !probe && version.data === undefined && !version.error;
  const connection: LocalAppConnection = unasked ? (version.isFetching ? { status: 'checking' } : { status: 'not_checked' }) : connectionOf(version, origin);
  const connected = connection.status === 'connected';
  const lists = options.lists ?? true;
  const workspaces = useQuery({
    queryKey: localAppKeys.workspaces,
    queryFn: ({ signal }) => callHelper('workspace_list', {}, signal),
    enabled: connected && lists,
    retry: false,
    staleTime: 5_000,
    refetchOnWindowFocus: true,
  });
  const workdirs = useQuery({
    queryKey: localAppKeys.workdirs,
    queryFn: ({ signal }) => callHelper('workdir_list', {}, signal),
    enabled: connected && lists,
    retry: false,
    staleTime: 2_000,
    refetchOnWindowFocus: true,
  });

  // A list call that finds nobody on the port: the helper stopped, so the connection is asked again.
  const lost = [workspaces.error, workdirs.error].some((error) => helperErrorCode(error) === LOCAL_APP_UNREACHABLE);
  useEffect(() => {
    if (lost) void queryClient.invalidateQueries({ queryKey: localAppKeys.version });
  }, [lost, queryClient]);

  const watchedIds = useWatched();
  const followed = useMemo(() => {
    const ids = new Set(watchedIds);
    for (const workdir of workdirs.data ?? []) if (workdir.state === 'installing') ids.add(workdir.id);
    return [...ids].sort();
  }, [watchedIds, workdirs.data]);
  const progress = useQueries({
    queries: followed.map((id) => ({
      queryKey: localAppKeys.progress(id),
      queryFn: async ({ signal }: { signal: AbortSignal }) => {
        const before = queryClient.getQueryData<TransitionProgress | null>(localAppKeys.progress(id));
        let now: TransitionProgress | null;
        try {
          now = await callHelper('transition_status', { id }, signal);
        } catch (error) {
          // The workdir is gone (deleted elsewhere): nothing to follow.
          if (helperErrorCode(error) === 'not_found') now = null;
          else throw error;
        }
        if (now === null && (before || watched.has(id))) {
          unwatchTransition(id);
          void queryClient.invalidateQueries({ queryKey: localAppKeys.workdirs });
        }
        return now;
      },
      enabled: connected,
      retry: false,
      staleTime: 0,
      refetchInterval: (query: { state: { data: TransitionProgress | null | undefined } }) => (query.state.data ? LOCAL_HELPER_POLL_MS : false),
    })),
  });
  const progressById = new Map<string, TransitionProgress>();
  followed.forEach((id, index) => {
    const data = progress[index]?.data;
    if (data) progressById.set(id, data);
  });

  const retry = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: localAppKeys.all });
  }, [queryClient]);
  // refetch runs the version query even while it is disabled (probe false): one request, on the user's word.
  const refetchVersion = version.refetch;
  const check = useCallback(() => void refetchVersion(), [refetchVersion]);

  return {
    connection,
    connected,
    retry,
    check,
    workspaces: { data: connected ? workspaces.data : undefined, error: workspaces.error, refetch: () => void workspaces.refetch() },
    workdirs: { data: connected ? workdirs.data : undefined, error: workdirs.error, refetch: () => void workdirs.refetch() },
    progressOf: (id) => progressById.get(id),
  };
}

/** Whole percent of a transition, 0..100 (an empty total is done). */
export function progressPercent(progress: TransitionProgress): number {
  if (progress.total <= 0) return 100;
  return Math.max(0, Math.min(100, Math.floor((progress.done / progress.total) * 100)));
}
