import { addDirectory, addFile, addSymlink, createTree, walkEntries, type ArchiveTree } from '../../shared/archive/index.ts';
import type { PackageDraft } from './package-draft.ts';

/** One entry of a tree flattened for postMessage: Blobs (Files) clone to a worker, Maps of objects with methods do not. */
type TransferEntry =
  | { kind: 'directory'; parts: string[] }
  | { kind: 'file'; parts: string[]; mode: number; blob: Blob }
  | { kind: 'symlink'; parts: string[]; mode: number; target: string };

export type TransferDraft = Omit<PackageDraft, 'tree'> & { entries: TransferEntry[]; entrypoint: string[] | null };

async function toBlob(source: { size: number; stream(): ReadableStream<Uint8Array> }): Promise<Blob> {
  if (source instanceof Blob) return source;
  // A generated source (tests, small edits): its bytes become a Blob; browser picks are Files already.
  return new Response(source.stream()).blob();
}

export async function flattenDraft(draft: PackageDraft): Promise<TransferDraft> {
  const entries: TransferEntry[] = [];
  for (const { entry, parts } of walkEntries(draft.tree.root)) {
    if (entry.kind === 'directory') entries.push({ kind: 'directory', parts });
    else if (entry.kind === 'symlink') entries.push({ kind: 'symlink', parts, mode: entry.mode, target: entry.target });
    else if (entry.source) entries.push({ kind: 'file', parts, mode: entry.mode, blob: await toBlob(entry.source) });
  }
  return { tags: draft.tags, title: draft.title, basePackage: draft.basePackage, entries, entrypoint: draft.tree.entrypoint ?? null };
}

export function rebuildDraft(transfer: TransferDraft): PackageDraft {
  const tree: ArchiveTree = createTree();
  for (const entry of transfer.entries) {
    if (entry.kind === 'directory') addDirectory(tree, entry.parts);
    else if (entry.kind === 'symlink') addSymlink(tree, entry.parts, entry.target, { mode: entry.mode });
    else addFile(tree, entry.parts, entry.blob, { mode: entry.mode });
  }
  if (transfer.entrypoint) tree.entrypoint = transfer.entrypoint;
  return { tags: transfer.tags, title: transfer.title, basePackage: transfer.basePackage, tree };
}
