/**
 * Turns what the user picked or dropped into paths and browser Files. Files are never read here: the
 * File itself becomes the archive tree's FileSource, so a build of several GiB costs no memory.
 */

/** A file, or an empty folder (kept so the package has the same shape as what was dropped). */
export type PickedEntry = { path: string[]; file: File } | { path: string[]; file?: undefined };

type EntryLike = FileSystemEntry;

/**
 * The dropped items' entries. Must run during the drop event: the browser empties the DataTransfer
 * once the handler returns, so the asynchronous walk starts from what is collected here.
 */
export function collectDropped(dataTransfer: DataTransfer): { entries: EntryLike[]; files: File[] } {
  const entries: EntryLike[] = [];
  const files: File[] = [];
  const items = dataTransfer.items ? [...dataTransfer.items] : [];
  for (const item of items) {
    if (item.kind !== 'file') continue;
    const entry = typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null;
    if (entry) entries.push(entry);
    else {
      const file = item.getAsFile();
      if (file) files.push(file);
    }
  }
  // No item API (or no entries at all): the plain file list has no folders but still has the files.
  if (entries.length === 0 && files.length === 0) files.push(...Array.from(dataTransfer.files ?? []));
  return { entries, files };
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/** readEntries hands out a batch at a time (100 in Chromium) until it returns an empty one. */
async function childrenOf(entry: FileSystemDirectoryEntry): Promise<EntryLike[]> {
  const reader = entry.createReader();
  const all: EntryLike[] = [];
  for (;;) {
    const batch = await new Promise<EntryLike[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

async function walkEntry(entry: EntryLike, prefix: string[], out: PickedEntry[]): Promise<void> {
  const path = [...prefix, entry.name];
  if (entry.isFile) {
    out.push({ path, file: await fileOf(entry as FileSystemFileEntry) });
    return;
  }
  if (!entry.isDirectory) return;
  const children = await childrenOf(entry as FileSystemDirectoryEntry);
  if (children.length === 0) out.push({ path });
  for (const child of children) await walkEntry(child, path, out);
}

/** Everything below the dropped entries, folders walked recursively. */
export async function readDropped(dropped: { entries: EntryLike[]; files: File[] }): Promise<PickedEntry[]> {
  const out: PickedEntry[] = dropped.files.map((file) => ({ path: [file.name], file }));
  for (const entry of dropped.entries) await walkEntry(entry, [], out);
  return out;
}

/** Files of an <input type="file">: with webkitdirectory each carries its path below the chosen folder. */
export function readInputFiles(files: FileList | readonly File[]): PickedEntry[] {
  return Array.from(files, (file) => {
    const relative = file.webkitRelativePath;
    return { path: relative ? relative.split('/').filter((part) => part !== '') : [file.name], file };
  });
}

type DirectoryHandle = {
  kind: 'directory';
  name: string;
  values(): AsyncIterable<DirectoryHandle | FileHandle>;
};
type FileHandle = { kind: 'file'; name: string; getFile(): Promise<File> };
type WithDirectoryPicker = { showDirectoryPicker?: (options?: { mode?: 'read' }) => Promise<DirectoryHandle> };

export function canPickDirectory(): boolean {
  return typeof (globalThis as WithDirectoryPicker).showDirectoryPicker === 'function';
}

async function walkHandle(handle: DirectoryHandle, prefix: string[], out: PickedEntry[]): Promise<void> {
  let empty = true;
  for await (const child of handle.values()) {
    empty = false;
    const path = [...prefix, child.name];
    if (child.kind === 'file') out.push({ path, file: await child.getFile() });
    else await walkHandle(child, path, out);
  }
  if (empty && prefix.length > 0) out.push({ path: prefix });
}

/**
 * The File System Access picker (Chromium): the chosen folder with everything below it. Null when the
 * user cancels. Callers fall back to <input webkitdirectory> where the picker does not exist.
 */
export async function pickDirectory(): Promise<PickedEntry[] | null> {
  const picker = (globalThis as WithDirectoryPicker).showDirectoryPicker;
  if (!picker) return null;
  let handle: DirectoryHandle;
  try {
    handle = await picker.call(globalThis, { mode: 'read' });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') return null;
    throw error;
  }
  const out: PickedEntry[] = [];
  await walkHandle(handle, [handle.name], out);
  if (out.length === 0) out.push({ path: [handle.name] });
  return out;
}
