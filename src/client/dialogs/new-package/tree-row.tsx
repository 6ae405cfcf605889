import type { DragEvent, KeyboardEvent, ReactNode } from 'react';
import { file_tree_executable } from '../../paraglide/messages/file_tree_executable.js';
import { file_tree_executable_label } from '../../paraglide/messages/file_tree_executable_label.js';
import { file_tree_explode } from '../../paraglide/messages/file_tree_explode.js';
import { file_tree_make_start } from '../../paraglide/messages/file_tree_make_start.js';
import { file_tree_move } from '../../paraglide/messages/file_tree_move.js';
import { file_tree_remove } from '../../paraglide/messages/file_tree_remove.js';
import { file_tree_start_file } from '../../paraglide/messages/file_tree_start_file.js';
import type { TreeRow } from './tree-rows.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  file_tree_executable,
  file_tree_executable_label,
  file_tree_explode,
  file_tree_make_start,
  file_tree_move,
  file_tree_remove,
  file_tree_start_file,
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
  /** The row Tab reaches (roving tab stop); only its buttons are in the tab order. */
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

/** One entry of the tree grid: name (with its folder toggle and badges), size, actions. */
export function TreeRowView(props: Props) {
  const { row, actions } = props;
  const { entry } = row;
  const name = entry.name;
  const folder = entry.kind === 'directory';
  const tab = props.active ? 0 : -1;
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
        <span className="file_tree_name">{folder ? `${name}/` : name}</span>
        {props.isEntrypoint ? <span className="badge file_tree_badge">{m.file_tree_start_file()}</span> : null}
      </td>
      <td role="gridcell" className="file_tree_size">
        {props.size}
      </td>
      <td role="gridcell">
        <div className="file_tree_actions">
          {entry.kind === 'file' ? (
            <label className="choice file_tree_executable">
              <input type="checkbox" tabIndex={tab} checked={props.executable} aria-label={m.file_tree_executable_label({ name })} onChange={() => actions.toggleExecutable(row)} />
              <span aria-hidden="true">{m.file_tree_executable()}</span>
            </label>
          ) : null}
          {entry.kind === 'file' && !props.isEntrypoint ? (
            <button type="button" className="button button_quiet file_tree_action" tabIndex={tab} onClick={() => actions.setEntrypoint(row)}>
              {m.file_tree_make_start()}
              <span className="visually_hidden"> ({name})</span>
            </button>
          ) : null}
          {folder ? (
            <button type="button" className="button button_quiet file_tree_action" tabIndex={tab} onClick={() => actions.explode(row)}>
              {m.file_tree_explode()}
              <span className="visually_hidden"> ({name})</span>
            </button>
          ) : null}
          <button type="button" className="button button_quiet file_tree_action" tabIndex={tab} onClick={() => actions.move(row)}>
            {m.file_tree_move()}
            <span className="visually_hidden"> ({name})</span>
          </button>
          <button type="button" className="button button_quiet file_tree_action" tabIndex={tab} onClick={() => actions.remove(row)}>
            {m.file_tree_remove()}
            <span className="visually_hidden"> ({name})</span>
          </button>
        </div>
      </td>
    </tr>
  );
}
