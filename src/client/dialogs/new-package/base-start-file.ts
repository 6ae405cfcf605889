import { useLayoutEffect, useRef } from 'react';
import { findEntry, setEntrypoint, type ArchiveTree } from '../../../shared/archive/index.ts';
import type { BaseCandidate } from './base-choice.ts';

function samePath(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return (a ?? []).join('/') === (b ?? []).join('/');
}

function isFileOf(tree: ArchiveTree, parts: readonly string[]): boolean {
  try {
    return findEntry(tree, parts)?.kind === 'file';
  } catch {
    return false; // A stored path this tree's rules refuse names none of its files.
  }
}

/**
 * An update takes over its base package's start file: once that file is among the new files, it is
 * preselected, once per base, unless the developer chose another one (which stays theirs to change).
 * A start file preselected for one base gives way to the next base's when the tags change.
 */
export function useBaseStartFile(tree: ArchiveTree, revision: number, base: BaseCandidate | null, refresh: (change: (tree: ArchiveTree) => void) => void): void {
  const preselected = useRef<{ base: string; path: string[] } | null>(null);
  useLayoutEffect(() => {
    const path = base?.entrypoint;
    if (!base || !path || path.length === 0 || preselected.current?.base === base.id) return;
    const untouched = !tree.entrypoint || tree.entrypoint.length === 0 || (preselected.current !== null && samePath(tree.entrypoint, preselected.current.path));
    if (!untouched || !isFileOf(tree, path)) return;
    preselected.current = { base: base.id, path: [...path] };
    refresh((target) => setEntrypoint(target, path));
  }, [tree, revision, base, refresh]);
}
