import { useId } from 'react';
import { sameTags } from '../../../shared/packages/same-tags.ts';
import { sortTags } from '../../../shared/packages/tags.ts';
import { new_package_tags_from } from '../../../shared/i18n/paraglide/messages/new_package_tags_from.js';
import type { BaseCandidate } from './base-choice.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { new_package_tags_from };

/**
 * The dialog starts with no tags: a new package is often another platform, and tags ticked in silence
 * made a web build 'Web Node.js'. Updating a package of the current version takes one click here, and
 * the button names the package the tags come from.
 */
export function TagsFrom({ candidates, tags, onChange }: { candidates: readonly BaseCandidate[]; tags: readonly string[]; onChange: (tags: string[]) => void }) {
  const labelId = useId();
  if (candidates.length === 0) return null;
  return (
    <div className="new_package_tags_from" role="group" aria-labelledby={labelId}>
      <span id={labelId} className="field_hint">
        {m.new_package_tags_from()}
      </span>
      {candidates.map((candidate) => (
        <button
          key={candidate.id}
          type="button"
          className="button"
          aria-pressed={sameTags(candidate.tags, tags)}
          data-package-id={candidate.id}
          onClick={() => onChange(sortTags(candidate.tags))}
        >
          <bdi>{candidate.title}</bdi>
        </button>
      ))}
    </div>
  );
}
