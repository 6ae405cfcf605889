import { useId, useMemo, useState } from 'react';
import { packages_search_hint } from '../../shared/i18n/paraglide/messages/packages_search_hint.js';
import { packages_search_label } from '../../shared/i18n/paraglide/messages/packages_search_label.js';
import { matchesPackageSearch, type SearchablePackage } from '../../shared/packages/package-search.ts';
import { tagLabel } from './tag-labels.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { packages_search_hint, packages_search_label };

/**
 * The packages that match what is typed (title, tag, its shown label, start file, version: the one
 * rule of src/shared/packages/package-search.ts), in the order given.
 */
export function usePackageSearch<T extends SearchablePackage>(items: readonly T[]) {
  const [query, setQuery] = useState('');
  const visible = useMemo(() => items.filter((item) => matchesPackageSearch(item, query, item.tags.map(tagLabel))), [items, query]);
  return { query, setQuery, visible };
}

/** The search box of the packages screen and the add-existing dialog; Escape clears it. */
export function PackageSearchField({ value, onChange, className }: { value: string; onChange: (value: string) => void; className?: string }) {
  const id = useId();
  const hintId = useId();
  return (
    <div role="search" className={className ? `package_search ${className}` : 'package_search'}>
      <label htmlFor={id} className="package_search_label">
        {m.packages_search_label()}
      </label>
      <input
        id={id}
        className="input package_search_input"
        type="search"
        value={value}
        maxLength={200}
        autoComplete="off"
        spellCheck={false}
        enterKeyHint="search"
        aria-describedby={hintId}
        onChange={(event) => onChange(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape' && value) {
            // The dialog around it must not close on the Escape that clears the search.
            event.preventDefault();
            event.stopPropagation();
            onChange('');
          }
        }}
      />
      <span id={hintId} className="package_search_hint">
        {m.packages_search_hint()}
      </span>
    </div>
  );
}
