import { useEffect, useRef, useState, type DragEvent, type KeyboardEvent, type ReactNode } from 'react';
import { MODE_EXECUTABLE, moveEntry, removeEntry, explodeDirectory, setEntrypoint, toggleExecutable, type ArchiveTree } from '../../../shared/archive/index.ts';
import { Size } from '../../components/size.tsx';
import { EmptyState } from '../../components/states.tsx';
import { useLanguage } from '../../lib/i18n/index.ts';
import { useDialogs } from '../dialog-provider.tsx';
import { file_tree_column_actions } from '../../../shared/i18n/paraglide/messages/file_tree_column_actions.js';
import { file_tree_column_name } from '../../../shared/i18n/paraglide/messages/file_tree_column_name.js';
import { file_tree_column_size } from '../../../shared/i18n/paraglide/messages/file_tree_column_size.js';
import { file_tree_empty } from '../../../shared/i18n/paraglide/messages/file_tree_empty.js';
import { file_tree_label } from '../../../shared/i18n/paraglide/messages/file_tree_label.js';
import { chooseMode } from './file-modes.ts';
import type { TreeState } from './tree-state.ts';
import { MoveDialog } from './move-dialog.tsx';
import { TreeRowView, type RowActions } from './tree-row.tsx';
import { expandedByDefault, visibleRows, type TreeRow } from './tree-rows.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { file_tree_column_actions, file_tree_column_name, file_tree_column_size, file_tree_empty, file_tree_label };

/** Marks a drag that started on one of our rows (dragover cannot read the data, only its types). */
const ENTRY_DRAG_TYPE = 'application/x-cartridge-entry';

export type FileTreeEditorProps = {
  state: TreeState;
  /** Files dropped from outside onto a folder ([] is the top level). */
  onDropFiles: (directory: string[], dataTransfer: DataTransfer) => void;
  /** Shown under the tree, inside the drop area. */
  hint?: ReactNode;
};

const hasFiles = (event: DragEvent) => Array.from(event.dataTransfer?.types ?? []).includes('Files');

/**
 * The package's files as a tree grid (spec §4 upload tree edits): drag rows onto folders, drop files on
 * a folder or the top level, explode a folder, set the start file, toggle executable, remove. Arrow
 * keys move between rows and open or close folders; each row's menu button (components/row-menu.tsx)
 * is the keyboard's way to act.
 */
export function FileTreeEditor({ state, onDropFiles, hint }: FileTreeEditorProps) {
  const { tree, edit } = state;
  const { dir } = useLanguage();
  const [toggled, setToggled] = useState<ReadonlySet<string>>(new Set());
  const [activeKey, setActiveKey] = useState<string | null>(null);
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const [dropKey, setDropKey] = useState<string | null>(null);
  const dialogs = useDialogs();
  const dragged = useRef<string[] | null>(null);
  const tableRef = useRef<HTMLTableElement>(null);

  const isExpanded = (row: TreeRow) => expandedByDefault(row) !== toggled.has(row.key);
  const rows = visibleRows(tree.root, isExpanded);
  const active = rows.find((row) => row.key === activeKey) ?? rows[0];

  useEffect(() => {
    if (focusKey === null) return;
    const rows = tableRef.current?.querySelectorAll<HTMLElement>('tr[data-path]') ?? [];
    const row = [...rows].find((element) => element.dataset.path === focusKey);
    row?.focus();
    setFocusKey(null);
  }, [focusKey]);

  const setExpanded = (row: TreeRow, expanded: boolean) => {
    if (isExpanded(row) === expanded) return;
    setToggled((current) => {
      const next = new Set(current);
      if (next.has(row.key)) next.delete(row.key);
      else next.add(row.key);
      return next;
    });
  };
  const focusRow = (row: TreeRow | undefined) => {
    if (!row) return;
    setActiveKey(row.key);
    setFocusKey(row.key);
  };

  const moveInto = (from: string[], directory: string[]) =>
    edit((target: ArchiveTree) => {
      // Into itself or where it already is: moveEntry changes nothing, which is what spec §4 asks.
      moveEntry(target, from, directory);
    });

  const actions: RowActions = {
    toggleExecutable: (row) =>
      edit((target) => {
        toggleExecutable(target, row.parts);
        chooseMode(target, row.parts);
      }),
    setEntrypoint: (row) => edit((target) => setEntrypoint(target, row.parts)),
    explode: (row) => edit((target) => explodeDirectory(target, row.parts)),
    remove: (row) => {
      const index = rows.indexOf(row);
      edit((target) => void removeEntry(target, row.parts));
      const neighbour = rows.slice(index + 1).find((other) => !other.key.startsWith(`${row.key}/`)) ?? rows[index - 1];
      if (neighbour) focusRow(neighbour);
    },
    // Opened through the dialog stack, not inside this form: its submit and Escape must not reach ours.
    move: (row) =>
      void dialogs.open<string[] | null>((close) => <MoveDialog root={tree.root} moving={row.parts} onClose={close} />).then((destination) => {
        if (!destination) return;
        moveInto(row.parts, destination);
        setFocusKey([...destination, row.entry.name].join('/'));
      }),
    toggleFolder: (row) => setExpanded(row, !isExpanded(row)),
  };

  /** Tree grid keys: arrows move and open or close folders, Home/End, Enter toggles, Delete removes. */
  const onRowKeyDown = (event: KeyboardEvent<HTMLTableRowElement>, row: TreeRow) => {
    if (event.target !== event.currentTarget) return;
    const index = rows.indexOf(row);
    const folder = row.entry.kind === 'directory';
    const expanded = folder && isExpanded(row);
    const parent = () => rows.find((other) => other.key === row.parts.slice(0, -1).join('/'));
    const firstChild = () => (rows[index + 1]?.depth === row.depth + 1 ? rows[index + 1] : undefined);
    // Right-to-left pages mirror the tree: the key pointing into the reading direction opens.
    const [openKey, closeKey] = dir === 'rtl' ? ['ArrowLeft', 'ArrowRight'] : ['ArrowRight', 'ArrowLeft'];
    const keys: Record<string, () => void> = {
      ArrowDown: () => focusRow(rows[index + 1]),
      ArrowUp: () => focusRow(rows[index - 1]),
      Home: () => focusRow(rows[0]),
      End: () => focusRow(rows[rows.length - 1]),
      [openKey]: () => (folder && !expanded ? setExpanded(row, true) : focusRow(firstChild())),
      [closeKey]: () => (expanded ? setExpanded(row, false) : focusRow(parent())),
      Delete: () => actions.remove(row),
      ...(folder ? { Enter: () => setExpanded(row, !expanded) } : {}),
    };
    const action = keys[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  };

  /** Where a drop over `row` lands: a folder itself, or the folder holding a file. */
  const dropDirectory = (row: TreeRow | null): string[] => (row === null ? [] : row.entry.kind === 'directory' ? row.parts : row.parts.slice(0, -1));

  const onDragOver = (event: DragEvent, row: TreeRow | null) => {
    if (dragged.current === null && !hasFiles(event)) return;
    event.preventDefault();
    event.stopPropagation();
    event.dataTransfer.dropEffect = dragged.current === null ? 'copy' : 'move';
    setDropKey(dropDirectory(row).join('/'));
  };
  const onDrop = (event: DragEvent, row: TreeRow | null) => {
    event.preventDefault();
    event.stopPropagation();
    setDropKey(null);
    const directory = dropDirectory(row);
    const from = dragged.current;
    dragged.current = null;
    if (from !== null) moveInto(from, directory);
    else onDropFiles(directory, event.dataTransfer);
  };

  return (
    <div
      className={`file_tree${dropKey === '' ? ' file_tree_drop_target' : ''}`}
      onDragOver={(event) => onDragOver(event, null)}
      onDragLeave={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDropKey(null);
      }}
      onDrop={(event) => onDrop(event, null)}
      data-testid="file-tree"
    >
      {rows.length === 0 ? (
        <EmptyState icon="files" compact>
          {m.file_tree_empty()}
        </EmptyState>
      ) : (
        <table ref={tableRef} role="treegrid" aria-label={m.file_tree_label()} className="file_tree_grid">
          <thead>
            <tr>
              <th scope="col">{m.file_tree_column_name()}</th>
              <th scope="col" className="file_tree_size">
                {m.file_tree_column_size()}
              </th>
              <th scope="col" className="file_tree_menu_cell">
                <span className="visually_hidden">{m.file_tree_column_actions()}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <TreeRowView
                key={row.key}
                row={row}
                size={<Size bytes={row.entry.size} />}
                expanded={row.entry.kind === 'directory' ? isExpanded(row) : undefined}
                executable={row.entry.kind === 'file' && (row.entry.mode & MODE_EXECUTABLE) !== 0}
                isEntrypoint={tree.entrypoint?.join('/') === row.key}
                active={row === active}
                dropTarget={dropKey === row.key && row.entry.kind === 'directory'}
                actions={actions}
                onFocus={() => setActiveKey(row.key)}
                onKeyDown={(event) => onRowKeyDown(event, row)}
                onDragStart={(event) => {
                  dragged.current = row.parts;
                  event.dataTransfer.setData(ENTRY_DRAG_TYPE, row.key);
                  event.dataTransfer.effectAllowed = 'move';
                }}
                onDragEnd={() => {
                  dragged.current = null;
                  setDropKey(null);
                }}
                onDragOver={(event) => onDragOver(event, row)}
                onDrop={(event) => onDrop(event, row)}
              />
            ))}
          </tbody>
        </table>
      )}
      {hint}
    </div>
  );
}
