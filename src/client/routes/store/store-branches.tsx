import { store_branch_published } from '../../paraglide/messages/store_branch_published.js';
import { store_branch_version } from '../../paraglide/messages/store_branch_version.js';
import { store_branches_empty } from '../../paraglide/messages/store_branches_empty.js';
import { store_branches_heading } from '../../paraglide/messages/store_branches_heading.js';
import { store_packages_heading } from '../../paraglide/messages/store_packages_heading.js';
import { MarkdownView } from '../../components/markdown-view.tsx';
import { EmptyState } from '../../components/states.tsx';
import { useLanguage } from '../../lib/i18n/react.tsx';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import { formatDateTime } from '../../../shared/format/date.ts';
import type { StoreProject } from '../../../shared/schemas/store.ts';
import { StorePackages } from './store-packages.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { store_branch_published, store_branch_version, store_branches_empty, store_branches_heading, store_packages_heading };

type StoreBranch = StoreProject['branches'][number];

/** Each public branch with its current version (the server sorts them with a collator), compact: a line per branch, a row per package. */
export function StoreBranches({ projectId, projectTitle, branches }: { projectId: string; projectTitle: string; branches: StoreBranch[] }) {
  return (
    <section className="section store_branches" aria-labelledby="store-branches">
      <h2 id="store-branches">{m.store_branches_heading()}</h2>
      {branches.length === 0 ? (
        <EmptyState>{m.store_branches_empty()}</EmptyState>
      ) : (
        <ul className="store_branch_list">
          {branches.map((branch) => (
            <li key={branch.id} className="store_branch" data-branch-id={branch.id}>
              <StoreBranchCard projectId={projectId} projectTitle={projectTitle} branch={branch} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function StoreBranchCard({ projectId, projectTitle, branch }: { projectId: string; projectTitle: string; branch: StoreBranch }) {
  const { language } = useLanguage();
  const headingId = `store-branch-${branch.id}`;
  return (
    <article aria-labelledby={headingId}>
      {/* One line: the branch, its version, when it was published. */}
      <div className="store_branch_head">
        <h3 id={headingId} className="store_branch_title">
          <bdi>{branch.title}</bdi>
        </h3>
        <p className="store_branch_version">{rich(m.store_branch_version({ version: slot('version') }), { version: <bdi>{branch.versionTitle}</bdi> })}</p>
        <p className="store_branch_published">
          <time dateTime={branch.branchVersionPublished}>{m.store_branch_published({ date: formatDateTime(branch.branchVersionPublished, language) })}</time>
        </p>
      </div>
      {branch.versionDescription.trim() ? (
        // Sanitised markdown as on the version page; its headings sit below the card's h3.
        <MarkdownView markdown={branch.versionDescription} headingOffset={3} className="store_version_description" />
      ) : null}
      <h4 className="store_packages_heading visually_hidden">{m.store_packages_heading()}</h4>
      <StorePackages project={{ id: projectId, title: projectTitle }} branch={branch} packages={branch.packages} />
    </article>
  );
}
