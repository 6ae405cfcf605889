import type { DragEvent, KeyboardEvent, ReactNode } from 'react';
import { file_tree_executable } from '../../../shared/i18n/paraglide/messages/file_tree_executable.js';
import { file_tree_explode } from '../../../shared/i18n/paraglide/messages/file_tree_explode.js';
import { file_tree_make_start } from '../../../shared/i18n/paraglide/messages/file_tree_make_start.js';
import { file_tree_move } from '../../../shared/i18n/paraglide/messages/file_tree_move.js';
import { file_tree_remove } from '../../../shared/i18n/paraglide/messages/file_tree_remove.js';
import { file_tree_start_file } from '../../../shared/i18n/paraglide/messages/file_tree_start_file.js';
import { row_menu_label } from '../../../shared/i18n/paraglide/messages/row_menu_label.js';
import { RowMenu, type RowMenuItem } from '../../components/row-menu.tsx';
import type { TreeRow } from './tree-rows.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  file_tree_executable,
  file_tree_explode,
  file_tree_make_start,
  file_tree_move,
  file_tree_remove,
  file_tree_start_file,
  row_menu_label,
};

export type RowActions = {
  toggleExecutable(row: TreeRow): void;
  setEntrypoint(row: TreeRow): void;
  explode(row: TreeRow): void;
  remove(row: TreeRow): void;
  move(row: TreeRow): void;
  toggleFolder(row: TreeRow): void;
};

type Props = {
  row: TreeRow;
  size: ReactNode;
  /** undefined for files and links. */
  expanded: boolean | undefined;
  executable: boolean;
  isEntrypoint: boolean;
  /** The row Tab reaches (roving tab stop); only its menu button is in the tab order. */
  active: boolean;
  dropTarget: boolean;
  actions: RowActions;
  onFocus(): void;
  onKeyDown(event: KeyboardEvent<HTMLTableRowElement>): void;
  onDragStart(event: DragEvent): void;
  onDragEnd(): void;
  onDragOver(event: DragEvent): void;
  onDrop(event: DragEvent): void;
};

/**
 * One entry of the tree grid: name (with its folder toggle and the start file and executable badges),
 * size, and one menu of the row's actions (make start file or replace with contents, executable, move,
 * remove) instead of a row of buttons.
 */
export function TreeRowView(props: Props) {
  const { row, actions } = props;
  const { entry } = row;
  const name = entry.name;
  const folder = entry.kind === 'directory';
  const tab = props.active ? 0 : -1;
  const menuItems: RowMenuItem[] = [
    ...(entry.kind === 'file' && !props.isEntrypoint ? [{ key: 'start', label: m.file_tree_make_start(), onSelect: () => actions.setEntrypoint(row) }] : []),
    ...(folder ? [{ key: 'explode', label: m.file_tree_explode(), onSelect: () => actions.explode(row) }] : []),
    ...(entry.kind === 'file' ? [{ key: 'executable', label: m.file_tree_executable(), checked: props.executable, onSelect: () => actions.toggleExecutable(row) }] : []),
    { key: 'move', label: `${m.file_tree_move()}…`, onSelect: () => actions.move(row) },
    { key: 'remove', label: m.file_tree_remove(), danger: true, onSelect: () => actions.remove(row) },
  ];
  const classes = ['file_tree_row', folder ? 'file_tree_folder' : 'file_tree_file', props.dropTarget ? 'file_tree_drop_target' : ''];
  return (
    <tr
      role="row"
      aria-level={row.depth}
      aria-expanded={props.expanded}
      tabIndex={tab}
      className={classes.join(' ').trim()}
      data-path={row.key}
      draggable
      onFocus={(event) => {
        if (event.currentTarget.contains(event.target)) props.onFocus();
      }}
      onKeyDown={props.onKeyDown}
      onDragStart={props.onDragStart}
      onDragEnd={props.onDragEnd}
      onDragOver={props.onDragOver}
      onDrop={props.onDrop}
    >
      <td role="gridcell" className="file_tree_name_cell" style={{ paddingInlineStart: `${(row.depth - 1) * 1.25 + 0.25}rem` }}>
        {folder ? (
          <button type="button" className="file_tree_toggle" tabIndex={-1} aria-hidden="true" onClick={() => actions.toggleFolder(row)}>
            {props.expanded ? '▾' : '▸'}
          </button>
        ) : (
          <span className="file_tree_toggle" aria-hidden="true" />
        )}
        {/* A path reads left to right in every language: 'build/', never '/build' in Arabic. */}
        <bdi dir="ltr" className="file_tree_name">
          {folder ? `${name}/` : name}
        </bdi>
        {props.isEntrypoint ? <span className="badge badge_accent file_tree_badge">{m.file_tree_start_file()}</span> : null}
        {props.executable ? <span className="badge file_tree_badge">{m.file_tree_executable()}</span> : null}
      </td>
      <td role="gridcell" className="file_tree_size">
        {props.size}
      </td>
      <td role="gridcell" className="file_tree_menu_cell">
        <RowMenu label={m.row_menu_label({ name })} items={menuItems} tabIndex={tab} />
      </td>
    </tr>
  );
}
