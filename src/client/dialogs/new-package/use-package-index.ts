import { useCallback, useEffect, useRef, useState } from 'react';
import { decodeIndex, isArchiveError, type ArchiveIndex, type ArchiveTree } from '../../../shared/archive/index.ts';
import { api } from '../../lib/api.ts';
import { trpc } from '../../lib/trpc.ts';
import { indexPackageTree, uploadPackSettings, type IndexProgress } from './package-index.ts';

export type IndexState =
  | { status: 'indexing'; progress: IndexProgress }
  | { status: 'ready'; index: ArchiveIndex; revision: number }
  /** `path`: the file that could not be read (moved, deleted or changed on disk since it was added). */
  | { status: 'failed'; path: string | null };

/** How often progress reaches React while indexing. */
const PROGRESS_INTERVAL_MS = 100;

/**
 * Indexes the tree after every change (revision); a change while indexing abandons the run under way.
 * Files already chunked are not read again.
 */
export function usePackageIndex(tree: ArchiveTree, revision: number): IndexState {
  const [state, setState] = useState<IndexState>({ status: 'indexing', progress: { done: 0, total: 0 } });
  useEffect(() => {
    const controller = new AbortController();
    let lastReport = 0;
    const onProgress = (progress: IndexProgress) => {
      const now = performance.now();
      if (now - lastReport < PROGRESS_INTERVAL_MS && progress.done < progress.total) return;
      lastReport = now;
      if (!controller.signal.aborted) setState({ status: 'indexing', progress });
    };
    indexPackageTree(tree, { chunking: uploadPackSettings().chunking, signal: controller.signal, onProgress }).then(
      (index) => {
        if (!controller.signal.aborted) setState({ status: 'ready', index, revision });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState({ status: 'failed', path: isArchiveError(error) ? (error.path ?? null) : null });
      },
    );
    return () => controller.abort();
  }, [tree, revision]);
  // Between an edit and its effect, the last index describes the tree before the edit.
  if (state.status === 'ready' && state.revision !== revision) return { status: 'indexing', progress: { done: 0, total: 0 } };
  return state;
}

export type BaseIndexState =
  | { status: 'none' }
  | { status: 'loading' }
  | { status: 'ready'; index: ArchiveIndex }
  | { status: 'failed'; retry: () => void };

/**
 * The base package's index (packageDownloads.url with filter 'index', fetched and decoded). The base
 * follows the selected tags: indexes already loaded are kept, so switching back fetches nothing.
 */
export function useBaseIndex(projectId: string, basePackageId: string | null): BaseIndexState {
  const utils = trpc.useUtils();
  const [attempt, setAttempt] = useState(0);
  const loaded = useRef(new Map<string, ArchiveIndex>());
  // Which package the state is about: right after the base changes it still describes the previous one.
  const [state, setState] = useState<{ packageId: string | null; value: BaseIndexState }>({ packageId: null, value: { status: 'none' } });
  const retry = useCallback(() => setAttempt((value) => value + 1), []);
  useEffect(() => {
    if (!basePackageId || loaded.current.has(basePackageId)) return;
    let cancelled = false;
    setState({ packageId: basePackageId, value: { status: 'loading' } });
    (async () => {
      const { url } = await utils.packageDownloads.url.fetch({ project: projectId, package: basePackageId, filter: 'index' }, { staleTime: 0 });
      // A signed file URL (no bearer), fetched once through the REST client.
      const response = await api.fetchFile(url);
      return decodeIndex(new Uint8Array(await response.arrayBuffer()));
    })().then(
      (index) => {
        loaded.current.set(basePackageId, index);
        if (!cancelled) setState({ packageId: basePackageId, value: { status: 'ready', index } });
      },
      () => {
        if (!cancelled) setState({ packageId: basePackageId, value: { status: 'failed', retry } });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [utils, projectId, basePackageId, attempt, retry]);
  if (!basePackageId) return { status: 'none' };
  const known = loaded.current.get(basePackageId);
  if (known) return { status: 'ready', index: known };
  return state.packageId === basePackageId ? state.value : { status: 'loading' };
}
