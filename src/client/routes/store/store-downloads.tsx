import type { SyntheticEvent } from 'react';
import { store_branch_published } from '../../../shared/i18n/paraglide/messages/store_branch_published.js';
import { store_branch_version } from '../../../shared/i18n/paraglide/messages/store_branch_version.js';
import { store_branches_empty } from '../../../shared/i18n/paraglide/messages/store_branches_empty.js';
import { store_branches_heading } from '../../../shared/i18n/paraglide/messages/store_branches_heading.js';
import { store_downloads_heading } from '../../../shared/i18n/paraglide/messages/store_downloads_heading.js';
import { store_packages_heading } from '../../../shared/i18n/paraglide/messages/store_packages_heading.js';
import { EmptyState } from '../../components/states.tsx';
import { useLanguage } from '../../lib/i18n/react.tsx';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import { formatDateTime } from '../../../shared/format/date.ts';
import type { StoreProject } from '../../../shared/schemas/store.ts';
import { namesBranches } from './store-facts.ts';
import { StorePackages } from './store-packages.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { store_branch_published, store_branch_version, store_branches_empty, store_branches_heading, store_downloads_heading, store_packages_heading };

type StoreBranch = StoreProject['branches'][number];

/** The id of the "All downloads" section (the card's link points to it). */
export const storeDownloadsAnchor = 'store-downloads';

/**
 * "All downloads" (issue 29): every package of every public branch's current version with its ZIP and
 * torrent, folded until the visitor opens it; the card above already offers what most visitors want.
 * Branches are named only when there are several (the server sorts them with a collator): a single
 * public branch is the game itself.
 */
export function StoreDownloads({ project, open, onOpenChange }: { project: Pick<StoreProject, 'id' | 'title' | 'branches'>; open: boolean; onOpenChange: (open: boolean) => void }) {
  const named = namesBranches(project);
  const ref = { id: project.id, title: project.title };
  return (
    <details
      id={storeDownloadsAnchor}
      className="section store_downloads"
      open={open}
      onToggle={(event: SyntheticEvent<HTMLDetailsElement>) => onOpenChange(event.currentTarget.open)}
    >
      <summary className="store_downloads_summary">
        <h2 className="store_downloads_heading">{m.store_downloads_heading()}</h2>
      </summary>
      {project.branches.length === 0 ? (
        <EmptyState>{m.store_branches_empty()}</EmptyState>
      ) : named ? (
        <ul className="store_branch_list" aria-label={m.store_branches_heading()}>
          {project.branches.map((branch) => (
            <li key={branch.id} className="store_branch" data-branch-id={branch.id}>
              <BranchDownloads project={ref} branch={branch} named />
            </li>
          ))}
        </ul>
      ) : (
        <div className="store_branch" data-branch-id={project.branches[0]!.id}>
          <BranchDownloads project={ref} branch={project.branches[0]!} named={false} />
        </div>
      )}
    </details>
  );
}

function BranchDownloads({ project, branch, named }: { project: { id: string; title: string }; branch: StoreBranch; named: boolean }) {
  const { language } = useLanguage();
  const headingId = `store-branch-${branch.id}`;
  return (
    <article aria-labelledby={headingId}>
      {/* One line: the branch (when there are several), its version, when it was published. */}
      <div className="store_branch_head">
        {named ? (
          <h3 id={headingId} className="store_branch_title">
            <bdi>{branch.title}</bdi>
          </h3>
        ) : (
          <h3 id={headingId} className="visually_hidden">
            {m.store_packages_heading()}
          </h3>
        )}
        <p className="store_branch_version">{rich(m.store_branch_version({ version: slot('version') }), { version: <bdi>{branch.versionTitle}</bdi> })}</p>
        <p className="store_branch_published">
          <time dateTime={branch.branchVersionPublished}>{m.store_branch_published({ date: formatDateTime(branch.branchVersionPublished, language) })}</time>
        </p>
      </div>
      <StorePackages project={project} branch={branch} packages={branch.packages} />
    </article>
  );
}
