import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { package_page_contents_empty } from '../../shared/i18n/paraglide/messages/package_page_contents_empty.js';
import { package_page_executable } from '../../shared/i18n/paraglide/messages/package_page_executable.js';
import { package_page_link_to } from '../../shared/i18n/paraglide/messages/package_page_link_to.js';
import { package_page_start_badge } from '../../shared/i18n/paraglide/messages/package_page_start_badge.js';
import { compareNames } from '../../shared/archive/bytes.ts';
import { MODE_EXECUTABLE } from '../../shared/archive/constants.ts';
import { decodeIndex } from '../../shared/archive/index-decode.ts';
import type { ArchiveDirectory, ArchiveEntry, ArchiveIndex } from '../../shared/archive/types.ts';
import { Size } from './size.tsx';
import { api, ApiError } from '../lib/api.ts';
import { EmptyState, ErrorState, LoadingState } from './states.tsx';
import { rich, slot } from '../lib/i18n/rich.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { package_page_contents_empty, package_page_executable, package_page_link_to, package_page_start_badge };

/** Fetches a package's encoded index from its (signed) URL and decodes it with the shared reader. */
async function fetchArchiveIndex(url: string): Promise<ArchiveIndex> {
  const response = await api.fetchFile(url).catch((error: unknown) => {
    // A failed answer is shown as not_found (404) or unexpected_error; no answer stays 'network'.
    if (error instanceof ApiError && error.status > 0) throw new ApiError(error.status === 404 ? 'not_found' : 'unexpected_error');
    throw error;
  });
  return decodeIndex(new Uint8Array(await response.arrayBuffer()));
}

export type ArchiveBrowserProps = {
  /** Identifies the index for caching (the package id and its index hash). */
  cacheKey: readonly unknown[];
  /** A fresh URL of the encoded index (download URLs are signed and expire). */
  loadIndexUrl: () => Promise<string>;
  entrypoint: readonly string[] | null;
  labelledBy?: string;
};

/**
 * The package's folders and files with their sizes. Folders are disclosure buttons (Enter or Space
 * opens them), so the whole tree works from the keyboard; only opened folders are rendered, which
 * keeps packages with many thousands of files fast.
 */
export function ArchiveBrowser({ cacheKey, loadIndexUrl, entrypoint, labelledBy }: ArchiveBrowserProps) {
  const query = useQuery({
    queryKey: ['package-index', ...cacheKey],
    queryFn: async () => fetchArchiveIndex(await loadIndexUrl()),
    staleTime: Number.POSITIVE_INFINITY,
    retry: 1,
  });
  if (query.error) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  if (!query.data) return <LoadingState />;
  const root = query.data.root;
  if (root.entries.size === 0) return <EmptyState icon="files">{m.package_page_contents_empty()}</EmptyState>;
  return (
    <div className="archive_browser" data-testid="archive-browser">
      <EntryList directory={root} path={[]} entrypoint={entrypoint} labelledBy={labelledBy} />
    </div>
  );
}

/** Folders first, then files and links, each in the archive's own name order. */
function ordered(directory: ArchiveDirectory): ArchiveEntry[] {
  return [...directory.entries.values()].sort((a, b) => {
    const aDir = a.kind === 'directory' ? 0 : 1;
    const bDir = b.kind === 'directory' ? 0 : 1;
    return aDir - bDir || compareNames(a.name, b.name);
  });
}

function isEntrypoint(path: readonly string[], entrypoint: readonly string[] | null): boolean {
  return entrypoint !== null && path.length === entrypoint.length && path.every((part, index) => part === entrypoint[index]);
}

function EntryList({ directory, path, entrypoint, labelledBy }: { directory: ArchiveDirectory; path: string[]; entrypoint: readonly string[] | null; labelledBy?: string }) {
  return (
    <ul className="archive_list" aria-labelledby={labelledBy}>
      {ordered(directory).map((entry) => (
        <Entry key={entry.name} entry={entry} path={[...path, entry.name]} entrypoint={entrypoint} />
      ))}
    </ul>
  );
}

function Entry({ entry, path, entrypoint }: { entry: ArchiveEntry; path: string[]; entrypoint: readonly string[] | null }) {
  const [open, setOpen] = useState(false);
  const childrenId = useId();
  const size = <Size bytes={entry.size} className="archive_size" />;
  if (entry.kind === 'directory') {
    return (
      <li className="archive_entry archive_directory" data-path={path.join('/')}>
        <button type="button" className="archive_toggle" aria-expanded={open} aria-controls={open ? childrenId : undefined} onClick={() => setOpen(!open)}>
          <span className="archive_marker" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          <bdi dir="ltr" className="archive_name">
            {entry.name}/
          </bdi>
          {size}
        </button>
        {open ? (
          <div id={childrenId}>
            {entry.entries.size === 0 ? <p className="archive_empty">{m.package_page_contents_empty()}</p> : <EntryList directory={entry} path={path} entrypoint={entrypoint} />}
          </div>
        ) : null}
      </li>
    );
  }
  return (
    <li className="archive_entry archive_file" data-path={path.join('/')}>
      <bdi dir="ltr" className="archive_name">
        {entry.name}
      </bdi>
      {entry.kind === 'symlink' ? <span className="archive_link">{rich(m.package_page_link_to({ target: slot('target') }), { target: <bdi dir="ltr">{entry.target}</bdi> })}</span> : size}
      {entry.kind === 'file' && (entry.mode & MODE_EXECUTABLE) !== 0 ? <span className="badge">{m.package_page_executable()}</span> : null}
      {isEntrypoint(path, entrypoint) ? <span className="badge archive_start_badge">{m.package_page_start_badge()}</span> : null}
    </li>
  );
}
