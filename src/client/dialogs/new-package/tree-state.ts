import { createElement, useCallback, useRef, useState, type ReactNode } from 'react';
import { addDirectory, addFile, createTree, hasBidiControl, isArchiveError, shownPath, type ArchiveTree } from '../../../shared/archive/index.ts';
import { new_package_bidi_name } from '../../../shared/i18n/paraglide/messages/new_package_bidi_name.js';
import { new_package_edit_failed } from '../../../shared/i18n/paraglide/messages/new_package_edit_failed.js';
import { new_package_exists } from '../../../shared/i18n/paraglide/messages/new_package_exists.js';
import { new_package_not_folder } from '../../../shared/i18n/paraglide/messages/new_package_not_folder.js';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import type { PickedEntry } from './read-dropped.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { new_package_bidi_name, new_package_edit_failed, new_package_exists, new_package_not_folder };

/** A path in a sentence, isolated left to right (in Arabic 'build/game', not 'game/build'). */
const pathIn = (message: (params: { path: string }) => string, path: string): ReactNode => rich(message({ path: slot('path') }), { path: createElement('bdi', { dir: 'ltr' }, path) });

/** The text shown when a tree edit is refused (a name taken, a file in the way, a name with bidi controls). */
function describeEditError(error: unknown): ReactNode {
  if (isArchiveError(error)) {
    const path = error.path ?? '';
    if (error.code === 'file_exists') return pathIn(m.new_package_exists, path);
    if (error.code === 'path_not_directory') return pathIn(m.new_package_not_folder, path);
    // Shown escaped: the name itself would display as another one.
    if (error.code === 'invalid_path' && hasBidiControl(path)) return pathIn(m.new_package_bidi_name, shownPath(path));
  }
  return m.new_package_edit_failed();
}

/**
 * Adds picked files below `directory` (path parts; [] is the top level). Each entry is added on its
 * own so one clash does not drop the rest; the first refusal is thrown once all the others are in.
 */
export function addPicked(tree: ArchiveTree, directory: readonly string[], picked: readonly PickedEntry[]): void {
  let firstError: unknown;
  for (const entry of picked) {
    try {
      const path = [...directory, ...entry.path];
      if (entry.file) addFile(tree, path, entry.file);
      else addDirectory(tree, path);
    } catch (error) {
      firstError ??= error;
    }
  }
  if (firstError !== undefined) throw firstError;
}

export type TreeState = {
  /** The archive library's tree: edited in place, so `revision` tells React (and the indexer) it changed. */
  tree: ArchiveTree;
  revision: number;
  /** Why the last edit was refused, if it was. */
  problem: ReactNode | null;
  /** Runs an edit of the tree; what it throws becomes `problem` (what it did before throwing stays). */
  edit(change: (tree: ArchiveTree) => void): void;
  /**
   * Something known about the tree's files changed (their heads were read) or the dialog adjusts
   * them itself (file-modes.ts): render again, running `change` first; the last refusal stays shown.
   */
  refresh(change?: (tree: ArchiveTree) => void): void;
};

export function useTreeState(): TreeState {
  const treeRef = useRef<ArchiveTree | null>(null);
  treeRef.current ??= createTree();
  const [revision, setRevision] = useState(0);
  const [problem, setProblem] = useState<ReactNode | null>(null);
  const edit = useCallback((change: (tree: ArchiveTree) => void) => {
    try {
      change(treeRef.current!);
      setProblem(null);
    } catch (error) {
      setProblem(describeEditError(error));
    }
    setRevision((value) => value + 1);
  }, []);
  const refresh = useCallback((change?: (tree: ArchiveTree) => void) => {
    change?.(treeRef.current!);
    setRevision((value) => value + 1);
  }, []);
  return { tree: treeRef.current, revision, problem, edit, refresh };
}
