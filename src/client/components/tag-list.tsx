import { edit_tags_none } from '../../shared/i18n/paraglide/messages/edit_tags_none.js';
import { sortTags } from '../../shared/packages/tags.ts';
import { tagLabel, tagLongLabel } from './tag-labels.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { edit_tags_none };

/** A package's tags as badges in the normalised order; the group name is in each badge's title. */
export function TagList({ tags, label }: { tags: readonly string[]; label?: string }) {
  if (tags.length === 0) return <span className="tag_list_none">{m.edit_tags_none()}</span>;
  return (
    <ul className="tag_list" aria-label={label}>
      {sortTags(tags).map((tag) => (
        <li key={tag} className="badge" title={tagLongLabel(tag)} data-tag={tag}>
          {tagLabel(tag)}
        </li>
      ))}
    </ul>
  );
}
