import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { AppError } from '../errors.ts';
import { isOutOfStorage, outOfStorage } from './out-of-storage.ts';
import {
  readBodyChunks,
  validateBlobKey,
  validateBlobPrefix,
  validateByteRange,
  type BlobBody,
  type BlobFile,
  type BlobStat,
  type BlobStore,
  type ByteRange,
} from './blob-store.ts';

/** Temp files live here, inside the root so a rename into place never crosses filesystems. */
const fileStoreTempFolder = '.tmp';
/** Temp files older than this are leftovers of a crash and are swept when a store opens. */
const staleTempAgeMs = 24 * 60 * 60 * 1000;
const readChunkSize = 256 * 1024;

export type FileBlobStoreOptions = {
  /** Folder holding the blobs; a key `a/b/c` is the file `root/a/b/c`. */
  root: string;
};

/**
 * Blobs as plain files under one folder. Puts stream into `root/.tmp/`, fsync, then rename into
 * place (atomic on POSIX), so a crash never leaves a half blob under a key. Reads open the file
 * first, so a blob replaced or deleted meanwhile is still read whole. Deleting prunes folders left
 * empty. Since keys are paths, one key cannot also be the folder of others (`a` and `a/b`).
 */
/** A blob's file opened for reading with its size; a missing key (or a folder) is not_found. */
async function openBlobFile(path: string): Promise<{ handle: FileHandle; size: number }> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (isMissing(error)) throw new AppError('not_found', 'Blob not found');
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new AppError('not_found', 'Blob not found');
    return { handle, size: info.size };
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

export function createFileBlobStore(options: FileBlobStoreOptions): BlobStore {
  const root = options.root;
  const tempFolder = join(root, fileStoreTempFolder);
  const pathOfKey = (key: string) => join(root, ...validateBlobKey(key).split('/'));

  // Best effort and in the background; close() waits for it.
  const sweeping = sweepStaleTempFiles(tempFolder);

  /** Streams `body` into a temp file, syncs it and renames it into place; a failure leaves nothing behind. */
  async function putFile(path: string, key: string, body: BlobBody): Promise<{ size: number }> {
    const tempPath = join(tempFolder, `${randomUUID()}.tmp`);
    let size = 0;
    let handle: FileHandle;
    try {
      await mkdir(tempFolder, { recursive: true });
      handle = await open(tempPath, 'wx', 0o644);
    } catch (error) {
      await cancelBody(body, error);
      throw error;
    }
    try {
      for await (const chunk of readBodyChunks(body)) {
        await writeFully(handle, chunk);
        size += chunk.byteLength;
      }
      await handle.sync();
    } catch (error) {
      await handle.close().catch(() => {});
      await rm(tempPath, { force: true });
      throw error;
    }
    await handle.close();
    try {
      await renameIntoPlace(tempPath, path, key);
    } catch (error) {
      await rm(tempPath, { force: true });
      throw error;
    }
    // The rename itself must survive a crash too: the database may already point at this key.
    await syncFolder(dirname(path));
    return { size };
  }

  return {
    kind: 'file',

    async put(key: string, body: BlobBody): Promise<{ size: number }> {
      try {
        return await putFile(pathOfKey(key), key, body);
      } catch (error) {
        // Said in one sentence (507): a full disk is the operator's to mend, and a retry then works.
        throw isOutOfStorage(error) ? outOfStorage(error) : error;
      }
    },

    async get(key: string, range?: ByteRange): Promise<ReadableStream<Uint8Array>> {
      validateByteRange(range);
      const { handle, size } = await openBlobFile(pathOfKey(key));
      try {
        const start = Math.min(range?.start ?? 0, size);
        const end = range?.end === undefined ? size : Math.min(range.end + 1, size);
        return streamFileHandle(handle, start, end);
      } catch (error) {
        await handle.close().catch(() => {});
        throw error;
      }
    },

    async read(key: string, range?: ByteRange): Promise<Uint8Array> {
      validateByteRange(range);
      const { handle, size } = await openBlobFile(pathOfKey(key));
      try {
        const start = Math.min(range?.start ?? 0, size);
        const end = range?.end === undefined ? size : Math.min(range.end + 1, size);
        const bytes = new Uint8Array(end - start);
        for (let filled = 0; filled < bytes.byteLength; ) {
          const { bytesRead } = await handle.read(bytes, filled, bytes.byteLength - filled, start + filled);
          if (bytesRead === 0) throw new Error('Blob file ended before its recorded size');
          filled += bytesRead;
        }
        return bytes;
      } finally {
        await handle.close().catch(() => {});
      }
    },

    async openFile(key: string): Promise<BlobFile> {
      const { handle } = await openBlobFile(pathOfKey(key));
      return {
        read: async (target, position) => (await handle.read(target, 0, target.byteLength, position)).bytesRead,
        close: () => handle.close(),
      };
    },

    async stat(key: string): Promise<BlobStat | undefined> {
      const path = pathOfKey(key);
      try {
        const info = await stat(path);
        return info.isFile() ? { size: info.size, modified: info.mtime } : undefined;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },

    async delete(key: string): Promise<void> {
      const path = pathOfKey(key);
      try {
        await unlink(path);
      } catch (error) {
        if (isMissing(error) || errorCode(error) === 'EISDIR' || errorCode(error) === 'EPERM') return;
        throw error;
      }
      await pruneEmptyFolders(dirname(path), root);
    },

    async *list(prefix: string): AsyncGenerator<{ key: string; size: number }> {
      validateBlobPrefix(prefix);
      yield* walkSorted(root, '', prefix);
    },

    async close(): Promise<void> {
      await sweeping;
    },
  };
}

/** A stream body that will not be read is cancelled, so whoever writes into it stops waiting. */
async function cancelBody(body: BlobBody, reason: unknown): Promise<void> {
  if (body instanceof ReadableStream) await body.cancel(reason).catch(() => undefined);
}

async function writeFully(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.byteLength) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset);
    offset += bytesWritten;
  }
}

/** mkdir + rename, again if a concurrent delete pruned the folder between the two. */
async function renameIntoPlace(tempPath: string, path: string, key: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await mkdir(dirname(path), { recursive: true });
      await rename(tempPath, path);
      return;
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' && attempt < 5) continue;
      if (code === 'EISDIR' || code === 'ENOTDIR' || code === 'EEXIST' || code === 'ENOTEMPTY') {
        throw new Error(`Blob key "${key}" clashes with another key's folder in the file store`, { cause: error });
      }
      throw error;
    }
  }
}

async function syncFolder(path: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (isMissing(error)) return; // a concurrent delete already removed the blob and its folder
    throw error;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Removes folders between `from` and `root` (exclusive) while they are empty. */
async function pruneEmptyFolders(from: string, root: string): Promise<void> {
  for (let folder = from; folder.startsWith(root) && folder !== root; folder = dirname(folder)) {
    try {
      await rmdir(folder);
    } catch {
      return; // not empty (or already gone, or refilled by a concurrent put): stop here
    }
  }
}

function streamFileHandle(handle: FileHandle, start: number, end: number): ReadableStream<Uint8Array> {
  let position = start;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const length = Math.min(readChunkSize, end - position);
        if (length <= 0) {
          await close();
          controller.close();
          return;
        }
        const buffer = new Uint8Array(length);
        const { bytesRead } = await handle.read(buffer, 0, length, position);
        if (bytesRead === 0) {
          // Blob files are never modified in place, so this only happens if someone truncated one.
          throw new Error('Blob file ended before its recorded size');
        }
        position += bytesRead;
        controller.enqueue(bytesRead === length ? buffer : buffer.subarray(0, bytesRead));
      } catch (error) {
        await close().catch(() => {});
        controller.error(error);
      }
    },
    async cancel() {
      await close();
    },
  });
}

type FolderEntry = { name: string; folder: boolean };

/**
 * Files under `folder` (whose keys start with `keyBase`) matching `prefix`, in key order. Folder
 * names sort as `name/` so `a-c` (0x2d) comes before `a/b` (0x2f), as S3 orders keys.
 */
async function* walkSorted(
  folder: string,
  keyBase: string,
  prefix: string,
): AsyncGenerator<{ key: string; size: number }> {
  let dirents;
  try {
    dirents = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  const entries: FolderEntry[] = [];
  for (const dirent of dirents) {
    if (dirent.name.startsWith('.')) continue; // temp folder and other bookkeeping, never keys
    if (dirent.isDirectory()) entries.push({ name: dirent.name, folder: true });
    else if (dirent.isFile()) entries.push({ name: dirent.name, folder: false });
  }
  const sortName = (entry: FolderEntry) => (entry.folder ? `${entry.name}/` : entry.name);
  entries.sort((a, b) => (sortName(a) < sortName(b) ? -1 : sortName(a) > sortName(b) ? 1 : 0));
  for (const entry of entries) {
    const key = keyBase + entry.name;
    if (entry.folder) {
      const folderKey = `${key}/`;
      if (folderKey.startsWith(prefix) || prefix.startsWith(folderKey)) {
        yield* walkSorted(join(folder, entry.name), folderKey, prefix);
      }
    } else if (key.startsWith(prefix)) {
      try {
        const info = await stat(join(folder, entry.name));
        yield { key, size: info.size };
      } catch (error) {
        if (!isMissing(error)) throw error; // deleted while listing: skip it
      }
    }
  }
}

async function sweepStaleTempFiles(tempFolder: string): Promise<void> {
  try {
    const now = Date.now();
    for (const name of await readdir(tempFolder)) {
      const path = join(tempFolder, name);
      const info = await stat(path).catch(() => undefined);
      if (info && now - info.mtimeMs > staleTempAgeMs) await rm(path, { force: true, recursive: true });
    }
  } catch {
    // best effort: a missing temp folder is the normal case
  }
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}

function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}
