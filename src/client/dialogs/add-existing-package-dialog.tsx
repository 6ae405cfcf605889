import { useId, useMemo, useState, type MouseEvent } from 'react';
import { add_existing_add } from '../../shared/i18n/paraglide/messages/add_existing_add.js';
import { add_existing_empty } from '../../shared/i18n/paraglide/messages/add_existing_empty.js';
import { add_existing_hint } from '../../shared/i18n/paraglide/messages/add_existing_hint.js';
import { add_existing_none_selected } from '../../shared/i18n/paraglide/messages/add_existing_none_selected.js';
import { add_existing_title } from '../../shared/i18n/paraglide/messages/add_existing_title.js';
import { dialog_cancel } from '../../shared/i18n/paraglide/messages/dialog_cancel.js';
import { packages_no_match } from '../../shared/i18n/paraglide/messages/packages_no_match.js';
import { EmptyState, ErrorState, LoadingState } from '../components/states.tsx';
import { PackageSearchField, usePackageSearch } from '../components/package-search.tsx';
import { PackageDetails } from '../components/package-facts.tsx';
import { TagList } from '../components/tag-list.tsx';
import { trpc } from '../lib/trpc.ts';
import { Size } from '../components/size.tsx';
import type { ProjectPackage } from '../../shared/schemas/packages.ts';
import { Modal } from './modal.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  add_existing_add,
  add_existing_empty,
  add_existing_hint,
  add_existing_none_selected,
  add_existing_title,
  dialog_cancel,
  packages_no_match,
};

/**
 * The project's ready packages (spec §5 add-existing), newest first, each with the versions it is in,
 * its upload date and start file, searchable (title, tag, start file, version): click selects one,
 * Ctrl/Cmd-click toggles several; Add takes the selected ones the search shows and is disabled with
 * none. Resolves with the chosen packages (null: cancelled).
 */
export function AddExistingPackageDialog(props: { projectId: string; exclude: readonly string[]; onClose: (packages: ProjectPackage[] | null) => void }) {
  const hintId = useId();
  const list = trpc.packages.list.useQuery({ project: props.projectId });
  const [selected, setSelected] = useState<string[]>([]);
  const ready = useMemo(
    () =>
      (list.data ?? [])
        .filter((item) => item.status === 'ready' && !props.exclude.includes(item.id))
        .sort((a, b) => Date.parse(b.created) - Date.parse(a.created)),
    [list.data, props.exclude],
  );
  const { query, setQuery, visible } = usePackageSearch(ready);
  const chosen = visible.filter((item) => selected.includes(item.id));

  const pick = (event: MouseEvent, id: string) => {
    if (event.ctrlKey || event.metaKey) setSelected((current) => (current.includes(id) ? current.filter((item) => item !== id) : [...current, id]));
    else setSelected((current) => (current.length === 1 && current[0] === id ? [] : [id]));
  };

  return (
    <Modal title={m.add_existing_title()} onCancel={() => props.onClose(null)}>
      {list.isLoading ? <LoadingState /> : list.error ? <ErrorState error={list.error} /> : null}
      {list.data && ready.length === 0 ? (
        <EmptyState icon="packages" compact>
          {m.add_existing_empty()}
        </EmptyState>
      ) : null}
      {ready.length > 0 ? (
        <>
          <PackageSearchField value={query} onChange={setQuery} className="add_existing_search" />
          <p id={hintId} className="field_hint">
            {m.add_existing_hint()}
          </p>
          {visible.length === 0 ? (
            <EmptyState icon="packages" compact>
              {m.packages_no_match({ query: query.trim() })}
            </EmptyState>
          ) : (
            <ul className="item_list add_existing_list" role="listbox" aria-multiselectable="true" aria-describedby={hintId} aria-label={m.add_existing_title()}>
              {visible.map((item) => (
                <li
                  key={item.id}
                  className="item add_existing_item"
                  role="option"
                  tabIndex={0}
                  data-package-id={item.id}
                  aria-selected={selected.includes(item.id)}
                  onClick={(event) => pick(event, item.id)}
                  onKeyDown={(event) => {
                    if (event.key !== ' ' && event.key !== 'Enter') return;
                    event.preventDefault();
                    setSelected((current) => (current.includes(item.id) ? current.filter((id) => id !== item.id) : [...current, item.id]));
                  }}
                >
                  <span className="add_existing_main">
                    <bdi className="add_existing_name">{item.title}</bdi>
                    <TagList tags={item.tags} />
                    {item.size !== null ? <Size bytes={item.size} className="add_existing_size" /> : null}
                  </span>
                  <PackageDetails pkg={item} className="add_existing_details" />
                </li>
              ))}
            </ul>
          )}
        </>
      ) : null}
      <div className="dialog_actions">
        <button type="button" className="button" onClick={() => props.onClose(null)}>
          {m.dialog_cancel()}
        </button>
        <button
          type="button"
          className="button button_primary"
          disabled={chosen.length === 0}
          title={chosen.length === 0 ? m.add_existing_none_selected() : undefined}
          onClick={() => props.onClose(chosen)}
        >
          {chosen.length === 0 ? m.add_existing_none_selected() : m.add_existing_add()}
        </button>
      </div>
    </Modal>
  );
}
