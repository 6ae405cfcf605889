import { store_branch_version } from '../../../shared/i18n/paraglide/messages/store_branch_version.js';
import { store_notes_heading } from '../../../shared/i18n/paraglide/messages/store_notes_heading.js';
import { MarkdownView } from '../../components/markdown-view.tsx';
import { useLanguage } from '../../lib/i18n/react.tsx';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import { formatDate } from '../../../shared/format/date.ts';
import type { StoreProject } from '../../../shared/schemas/store.ts';
import { byNewest } from './primary-action.ts';
import { namesBranches } from './store-facts.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { store_branch_version, store_notes_heading };

/**
 * The current versions' notes (issue 29), newest publish first, as rendered notes: the version and its
 * date over the sanitised markdown (the author's headings below this section's). A branch is named
 * only when there are several. Nothing when no version has notes.
 */
export function StoreVersionNotes({ project }: { project: Pick<StoreProject, 'branches'> }) {
  const { language } = useLanguage();
  const named = namesBranches(project);
  const withNotes = byNewest(project.branches).filter((branch) => branch.versionDescription.trim() !== '');
  if (withNotes.length === 0) return null;
  return (
    <section className="section store_notes" aria-labelledby="store-notes">
      <h2 id="store-notes">{m.store_notes_heading()}</h2>
      {withNotes.map((branch) => (
        <article key={branch.id} className="store_note" data-branch-id={branch.id} aria-labelledby={`store-note-${branch.id}`}>
          <h3 id={`store-note-${branch.id}`} className="store_note_heading">
            {named ? (
              <>
                <bdi>{branch.title}</bdi>
                <span aria-hidden="true"> · </span>
              </>
            ) : null}
            <span className="store_note_version">{rich(m.store_branch_version({ version: slot('version') }), { version: <bdi>{branch.versionTitle}</bdi> })}</span>
            <span aria-hidden="true"> · </span>
            <time className="store_note_date" dateTime={branch.branchVersionPublished}>
              {formatDate(branch.branchVersionPublished, language)}
            </time>
          </h3>
          <MarkdownView markdown={branch.versionDescription} headingOffset={3} className="store_version_description" />
        </article>
      ))}
    </section>
  );
}
