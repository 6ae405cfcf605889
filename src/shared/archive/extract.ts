// Node/Bun only (node:fs): kept out of the core index so browser bundles never see it.
import { mkdirSync, symlinkSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { ArchiveError, toArchiveError } from './errors.ts';
import { equalBytes, toHex } from './bytes.ts';
import { MODE_EXECUTABLE } from './constants.ts';
import { sharedHashThread, type HashThread, type ThreadPlace, type ThreadPlaceError } from './hash-thread.ts';
import { PlacementWriter } from './placement-writer.ts';
import { readArchive, type ArchiveReadResult, type ChunkBatchHasher, type ReadOptions } from './reader.ts';
import { checkSymlinks } from './symlink-check.ts';
import { walkEntries } from './tree.ts';
import type { ArchiveDirectory } from './types.ts';

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

/**
 * A file to write, created (O_EXCL, its mode) when its first chunk arrives, or at the end if none does.
 * `single`: the whole file is one chunk. `created`: set by this thread once the file exists, or when the
 * hashing thread is given a single-chunk file to create (see ThreadPlacement).
 */
type FileSlot = { path: string; mode: number; size: number; single: boolean; created: boolean };
type Placement = { slot: FileSlot; offset: number };
/** One distinct chunk: where it lands (every file and offset), and whether it was written yet. */
type ChunkPlaces = { hash: Uint8Array; places: Placement[]; written: boolean };

type Layout = {
  files: FileSlot[];
  /** Distinct chunks by ordinal (first-reference order, the order of the chunk data)... */
  chunks: ChunkPlaces[];
  /** ...and by hex hash, for a read result whose ordinals do not match this index. */
  byHash: Map<string, ChunkPlaces>;
  links: { path: string; target: string }[];
};

/** Creates the directories (index order: parents first) and plans files and links; writes no file yet. */
function layOut(root: string, tree: ArchiveDirectory): Layout {
  const files: FileSlot[] = [];
  const chunks: ChunkPlaces[] = [];
  const byHash = new Map<string, ChunkPlaces>();
  const links: Layout['links'] = [];
  for (const { entry, parts } of walkEntries(tree)) {
    const path = placeInside(root, parts);
    switch (entry.kind) {
      case 'directory':
        mkdirSync(path, { mode: 0o755 });
        break;
      case 'file': {
        const fileChunks = entry.chunks ?? [];
        const slot: FileSlot = { path, mode: fileMode(entry.mode), size: entry.size, single: fileChunks.length === 1, created: false };
        files.push(slot);
        let offset = 0;
        for (const chunk of fileChunks) {
          const key = toHex(chunk.hash);
          let known = byHash.get(key);
          if (known === undefined) {
            known = { hash: chunk.hash, places: [], written: false };
            byHash.set(key, known);
            chunks.push(known);
          }
          known.places.push({ slot, offset });
          offset += chunk.size;
        }
        break;
      }
      case 'symlink':
        links.push({ path, target: entry.target });
        break;
    }
  }
  return { files, chunks, byHash, links };
}

/**
 * Joins consecutive chunks of one file that lie back to back in one buffer (a stream piece holds several
 * chunks of a large file) into one write: fewer system calls.
 */
class WriteRun {
  private path = '';
  private offset = 0;
  private bytes: Uint8Array | undefined;
  constructor(
    private readonly writer: PlacementWriter,
    private readonly root: string,
  ) {}

  add(path: string, offset: number, bytes: Uint8Array): void {
    const run = this.bytes;
    if (
      run !== undefined &&
      path === this.path &&
      offset === this.offset + run.length &&
      bytes.buffer === run.buffer &&
      bytes.byteOffset === run.byteOffset + run.length
    ) {
      this.bytes = new Uint8Array(run.buffer, run.byteOffset, run.length + bytes.length);
      return;
    }
    this.flush();
    this.path = path;
    this.offset = offset;
    this.bytes = bytes;
  }

  flush(): void {
    const run = this.bytes;
    if (run === undefined) return;
    this.bytes = undefined;
    try {
      this.writer.write(this.path, this.offset, run);
    } catch (error) {
      throw writeFailed(error, this.root, this.path);
    }
  }
}

/**
 * The reader's batch hasher during an extraction from a stream: the hashing thread, which also takes
 * over the writing of a batch whenever it has nothing else to do (busy() is 0): then this thread, which
 * reads, copies and writes, is the slower one, and handing the thread a batch's places balances the two
 * cores. The thread writes a chunk only after checking its digest, so nothing unverified lands on disk.
 * It may write to files this thread created already (they exist), and it creates single-chunk files
 * (no other place of theirs can be written before it is done); a multi-chunk file not created yet
 * stays with this thread, which creates it in chunk order when the reader yields its first chunk.
 */
class ThreadPlacement implements ChunkBatchHasher {
  layout: Layout | undefined;
  error: ThreadPlaceError | undefined;
  readonly maxBatchBytes: number;
  /** Batches handed to the thread and not answered yet: waited for before the extraction returns. */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly thread: HashThread) {
    this.maxBatchBytes = thread.maxBatchBytes;
  }

  hashBatch(views: readonly Uint8Array[], chunks?: readonly { ordinal: number; hash: Uint8Array }[]): Promise<Uint8Array> {
    return this.track(this.hashOrPlace(views, chunks));
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    const settled: Promise<unknown> = promise.then(
      () => this.pending.delete(settled),
      () => this.pending.delete(settled),
    );
    this.pending.add(settled);
    return promise;
  }

  /** Resolves once no batch of this extraction is with the thread any more (none writes after this). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private hashOrPlace(views: readonly Uint8Array[], chunks?: readonly { ordinal: number; hash: Uint8Array }[]): Promise<Uint8Array> {
    const layout = this.layout;
    if (layout === undefined || chunks === undefined || this.error !== undefined || this.thread.busy() > 0) return this.thread.hashBatch(views, chunks);
    const expected = new Uint8Array(32 * views.length);
    const places: ThreadPlace[] = [];
    for (let view = 0; view < chunks.length; view++) {
      const { ordinal, hash } = chunks[view]!;
      expected.set(hash, 32 * view);
      const known = layout.chunks[ordinal];
      if (known === undefined || known.written || !equalBytes(known.hash, hash)) continue;
      const kept: Placement[] = [];
      for (const place of known.places) {
        const slot = place.slot;
        if (slot.created) places.push({ view, path: slot.path, offset: place.offset });
        else if (slot.single) {
          // The whole file is this chunk (the index guarantees the sizes add up).
          slot.created = true;
          places.push({ view, path: slot.path, offset: 0, mode: slot.mode });
        } else kept.push(place);
      }
      known.places = kept;
    }
    if (places.length === 0) return this.thread.hashBatch(views, chunks);
    return this.thread.hashAndPlace(views, expected, places).then(({ digests, error }) => {
      if (error !== undefined) this.error ??= error;
      return digests;
    });
  }
}

/**
 * Writes an archive into an empty directory: folders, files (0o755 when executable, else 0o644), then
 * symlinks last. Before anything is written every link is checked by the shared rule
 * (symlink-check.ts): none may lead outside the target, even through other links.
 *
 * Each verified chunk is written at every offset that references it through a PlacementWriter (a few
 * descriptors open at once; a file created with O_EXCL and its mode when its first chunk arrives;
 * blocking pwrites, consecutive chunks of a file joined). From a stream, chunks are hashed on a second
 * thread (hash-thread.ts) a few batches ahead while this one writes, and that thread also writes the
 * verified chunks of a batch itself whenever it would otherwise wait (ThreadPlacement).
 */
export async function extractArchive(
  input: ArchiveReadResult | ReadableStream<Uint8Array>,
  targetDir: string,
  options: ExtractOptions = {},
): Promise<void> {
  const ownRead = input instanceof ReadableStream && options.chunkHasher === undefined;
  const placement = ownRead ? new ThreadPlacement(sharedHashThread()) : undefined;
  try {
    const result = input instanceof ReadableStream ? await readArchive(input, placement === undefined ? options : { ...options, chunkHasher: placement }) : input;
    await extractResult(result, targetDir, options, placement);
  } finally {
    // Stopped early (a failure): the thread may still be writing batches read ahead; never after we return.
    await placement?.idle();
  }
}

/** A path inside the target as the archive names it ('a/b/c'). */
function archivePath(root: string, path: string): string {
  return path.startsWith(root + sep) ? path.slice(root.length + 1).split(sep).join('/') : path;
}

function writeFailed(error: unknown, root: string, path: string): ArchiveError {
  return toArchiveError(error, 'write_failed', `cannot write '${archivePath(root, path)}'`, archivePath(root, path));
}

function threadFailure(error: ThreadPlaceError, root: string): ArchiveError {
  const path = archivePath(root, error.path);
  return new ArchiveError('write_failed', `cannot write '${path}': ${error.message}`, { path });
}

/** Creates a file here (O_EXCL, its mode; `size` only for files no chunk will fill). */
function createHere(writer: PlacementWriter, root: string, slot: FileSlot, size = 0): void {
  try {
    writer.create(slot.path, slot.mode, size);
  } catch (error) {
    throw writeFailed(error, root, slot.path);
  }
  slot.created = true;
}

async function extractResult(result: ArchiveReadResult, targetDir: string, options: ExtractOptions, placement: ThreadPlacement | undefined): Promise<void> {
  const root = await prepareTarget(targetDir);
  const writer = new PlacementWriter({ maxOpenFiles: options.maxOpenFiles ?? 16 });
  try {
    // readArchive already refused such links; an ArchiveReadResult built by other means is checked too.
    checkSymlinks(result.index.root);
    const layout = layOut(root, result.index.root);
    const { files, chunks, byHash, links } = layout;
    if (placement !== undefined) placement.layout = layout;
    let unwritten = chunks.length;
    const run = new WriteRun(writer, root);
    try {
      for await (const chunk of result.chunks()) {
        if (placement?.error !== undefined) throw threadFailure(placement.error, root);
        let known = chunks[chunk.ordinal];
        if (known === undefined || !equalBytes(known.hash, chunk.hash)) known = byHash.get(toHex(chunk.hash));
        if (known === undefined || known.written) continue;
        known.written = true;
        unwritten--;
        for (const { slot, offset } of known.places) {
          // No ftruncate: the chunks written give the file its size.
          if (!slot.created) createHere(writer, root, slot);
          run.add(slot.path, offset, chunk.bytes);
        }
      }
      run.flush();
      if (placement?.error !== undefined) throw threadFailure(placement.error, root);
      // Empty files, and files whose chunks never came (the missing_chunk case below).
      for (const slot of files) {
        if (slot.created) continue;
        createHere(writer, root, slot, slot.size);
        writer.closeFile(slot.path);
      }
    } finally {
      writer.closeAll();
    }
    if (unwritten > 0) throw new ArchiveError('missing_chunk', `${unwritten} chunks were not provided (patch without base?)`);
    for (const link of links) symlinkSync(link.target, link.path);
  } catch (error) {
    throw toArchiveError(error, 'write_failed', 'extraction failed');
  }
}
