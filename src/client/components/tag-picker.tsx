import { useId } from 'react';
import { LINUX_TAG, sortTags, tagGroupNames, type TagGroup } from '../../shared/packages/tags.ts';
import { edit_tags_distro_needs_os } from '../../shared/i18n/paraglide/messages/edit_tags_distro_needs_os.js';
import { groupTags, tagGroupLabels, tagLabel } from './tag-labels.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { edit_tags_distro_needs_os };

export type TagPickerProps = {
  /** Selected tags ('os:linux', ...). */
  value: string[];
  /** Called with the new selection in the normalised order (spec §3). */
  onChange(tags: string[]): void;
  disabled?: boolean;
};

/**
 * Package tags as one group of checkboxes per tag group. Distro values need os:linux: they are disabled
 * without it, and unticking os:linux drops them so the selection always passes validateTags().
 */
export function TagPicker({ value, onChange, disabled }: TagPickerProps) {
  const baseId = useId();
  const selected = new Set(value);
  const hasLinux = selected.has(LINUX_TAG);

  const toggle = (tag: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(tag);
    else next.delete(tag);
    if (!next.has(LINUX_TAG)) for (const t of [...next]) if (t.startsWith('distro:')) next.delete(t);
    onChange(sortTags(next));
  };

  return (
    <div className="tag_picker">
      {tagGroupNames.map((group: TagGroup) => {
        const groupDisabled = disabled || (group === 'distro' && !hasLinux);
        const hintId = `${baseId}-${group}-hint`;
        return (
          <fieldset key={group} className="field tag_picker_group" disabled={groupDisabled} aria-describedby={group === 'distro' && !hasLinux ? hintId : undefined}>
            <legend>{tagGroupLabels[group]()}</legend>
            <div className="tag_picker_values">
              {groupTags(group).map((tag) => (
                <label key={tag} className="choice tag_picker_choice">
                  <input type="checkbox" name={tag} value={tag} checked={selected.has(tag)} onChange={(event) => toggle(tag, event.currentTarget.checked)} />
                  {tagLabel(tag)}
                </label>
              ))}
            </div>
            {group === 'distro' && !hasLinux ? (
              <p id={hintId} className="field_hint">
                {m.edit_tags_distro_needs_os({ os: tagLabel(LINUX_TAG) })}
              </p>
            ) : null}
          </fieldset>
        );
      })}
    </div>
  );
}
