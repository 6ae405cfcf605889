import { useId, useState, type MouseEvent } from 'react';
import { add_existing_add } from '../paraglide/messages/add_existing_add.js';
import { add_existing_empty } from '../paraglide/messages/add_existing_empty.js';
import { add_existing_hint } from '../paraglide/messages/add_existing_hint.js';
import { add_existing_none_selected } from '../paraglide/messages/add_existing_none_selected.js';
import { add_existing_title } from '../paraglide/messages/add_existing_title.js';
import { dialog_cancel } from '../paraglide/messages/dialog_cancel.js';
import { EmptyState, ErrorState, LoadingState } from '../components/states.tsx';
import { trpc } from '../lib/trpc.ts';
import { Size } from '../components/size.tsx';
import type { Package } from '../../shared/schemas/packages.ts';
import { Modal } from './modal.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { add_existing_add, add_existing_empty, add_existing_hint, add_existing_none_selected, add_existing_title, dialog_cancel };

/**
 * The project's ready packages (spec §5 add-existing): click selects one, Ctrl/Cmd-click toggles
 * several; Add is disabled with nothing selected. Resolves with the chosen packages (null: cancelled).
 */
export function AddExistingPackageDialog(props: { projectId: string; exclude: readonly string[]; onClose: (packages: Package[] | null) => void }) {
  const hintId = useId();
  const list = trpc.packages.list.useQuery({ project: props.projectId });
  const [selected, setSelected] = useState<string[]>([]);
  const ready = (list.data ?? []).filter((item) => item.status === 'ready' && !props.exclude.includes(item.id));

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
          <p id={hintId} className="field_hint">
            {m.add_existing_hint()}
          </p>
          <ul className="item_list add_existing_list" role="listbox" aria-multiselectable="true" aria-describedby={hintId} aria-label={m.add_existing_title()}>
            {ready.map((item) => (
              <li
                key={item.id}
                className="item add_existing_item"
                role="option"
                tabIndex={0}
                aria-selected={selected.includes(item.id)}
                onClick={(event) => pick(event, item.id)}
                onKeyDown={(event) => {
                  if (event.key !== ' ' && event.key !== 'Enter') return;
                  event.preventDefault();
                  setSelected((current) => (current.includes(item.id) ? current.filter((id) => id !== item.id) : [...current, item.id]));
                }}
              >
                <bdi className="add_existing_name">{item.title}</bdi>
                <span className="add_existing_tags">{item.tags.join(' ')}</span>
                {item.size !== null ? <Size bytes={item.size} className="add_existing_size" /> : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <div className="dialog_actions">
        <button type="button" className="button" onClick={() => props.onClose(null)}>
          {m.dialog_cancel()}
        </button>
        <button
          type="button"
          className="button button_primary"
          disabled={selected.length === 0}
          title={selected.length === 0 ? m.add_existing_none_selected() : undefined}
          onClick={() => props.onClose(ready.filter((item) => selected.includes(item.id)))}
        >
          {selected.length === 0 ? m.add_existing_none_selected() : m.add_existing_add()}
        </button>
      </div>
    </Modal>
  );
}
