// Node/Bun only (node:fs): kept out of the core index so browser bundles never see it.
import { mkdir, open, readdir, symlink, chmod, type FileHandle } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { ArchiveError, toArchiveError } from './errors.ts';
import { toHex } from './bytes.ts';
import { mapChunkPlacements } from './chunks.ts';
import { MODE_EXECUTABLE } from './constants.ts';
import { readArchive, type ArchiveReadResult, type ReadOptions } from './reader.ts';
import { checkSymlinks } from './symlink-check.ts';
import { walkEntries } from './tree.ts';
import type { ArchiveFile } from './types.ts';

export type ExtractOptions = ReadOptions & { maxOpenFiles?: number };

function fileMode(mode: number): number {
  return (mode & MODE_EXECUTABLE) !== 0 ? 0o755 : 0o644;
}

/** Refuses a target that has anything in it: a planted symlink there could redirect our writes. */
async function prepareTarget(targetDir: string): Promise<string> {
  const root = resolve(targetDir);
  await mkdir(root, { recursive: true });
  const existing = await readdir(root);
  if (existing.length > 0) throw new ArchiveError('file_exists', `'${root}' is not empty`, { path: root });
  return root;
}

function placeInside(root: string, parts: readonly string[]): string {
  const path = join(root, ...parts);
  if (!path.startsWith(root + sep)) {
    throw new ArchiveError('path_outside_target', `'${parts.join('/')}' leaves the target directory`, { path: parts.join('/') });
  }
  return path;
}

/** A few open handles at a time: chunk data mostly walks files in order, dedup jumps back. */
class HandleCache {
  private readonly handles = new Map<ArchiveFile, FileHandle>();
  constructor(
    private readonly paths: Map<ArchiveFile, string>,
    private readonly limit: number,
  ) {}

  async get(file: ArchiveFile): Promise<FileHandle> {
    const open_ = this.handles.get(file);
    if (open_ !== undefined) {
      this.handles.delete(file);
      this.handles.set(file, open_);
      return open_;
    }
    if (this.handles.size >= this.limit) {
      const [oldestFile, oldest] = this.handles.entries().next().value!;
      this.handles.delete(oldestFile);
      await oldest.close();
    }
    const handle = await open(this.paths.get(file)!, 'r+');
    this.handles.set(file, handle);
    return handle;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.handles.values()].map((handle) => handle.close().catch(() => undefined)));
    this.handles.clear();
  }
}

/**
 * Writes an archive into an empty directory: folders, files (0o755 when executable, else 0o644), then
 * symlinks last. Before anything is written every link is checked by the shared rule
 * (symlink-check.ts): none may lead outside the target, even through other links. Memory holds one
 * chunk: each chunk is written at every offset that references it.
 */
export async function extractArchive(
  input: ArchiveReadResult | ReadableStream<Uint8Array>,
  targetDir: string,
  options: ExtractOptions = {},
): Promise<void> {
  const result = input instanceof ReadableStream ? await readArchive(input, options) : input;
  const root = await prepareTarget(targetDir);
  const paths = new Map<ArchiveFile, string>();
  const links: { parts: string[]; target: string }[] = [];
  try {
    // readArchive already refused such links; an ArchiveReadResult built by other means is checked too.
    checkSymlinks(result.index.root);
    for (const { entry, parts } of walkEntries(result.index.root)) {
      const path = placeInside(root, parts);
      switch (entry.kind) {
        case 'directory':
          await mkdir(path, { mode: 0o755 });
          break;
        case 'file': {
          const handle = await open(path, 'wx', fileMode(entry.mode));
          await handle.truncate(entry.size);
          await handle.close();
          await chmod(path, fileMode(entry.mode));
          paths.set(entry, path);
          break;
        }
        case 'symlink':
          links.push({ parts, target: entry.target });
          break;
      }
    }
    const placements = mapChunkPlacements(result.index);
    const handles = new HandleCache(paths, options.maxOpenFiles ?? 16);
    const missing = new Set(placements.keys());
    try {
      for await (const chunk of result.chunks()) {
        const key = toHex(chunk.hash);
        missing.delete(key);
        for (const place of placements.get(key) ?? []) {
          const handle = await handles.get(place.file);
          await handle.write(chunk.bytes, 0, chunk.bytes.length, place.offset);
        }
      }
    } finally {
      await handles.closeAll();
    }
    if (missing.size > 0) throw new ArchiveError('missing_chunk', `${missing.size} chunks were not provided (patch without base?)`);
    for (const link of links) await symlink(link.target, placeInside(root, link.parts));
  } catch (error) {
    throw toArchiveError(error, 'write_failed', 'extraction failed');
  }
}
