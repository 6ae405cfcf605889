import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { open, readdir, rename, rm, stat, utimes, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { defaultFreeSpaceFloor, roomAboveFloor, type FreeSpaceFloor } from './free-space.ts';
import { isOutOfStorage } from './out-of-storage.ts';

/**
 * Generated downloads (a package's ZIP, its archive) kept as plain files on local disk, so they are
 * sent with sendfile: the kernel copies the bytes, memory stays flat whatever the size and the number
 * of downloads, and the reply carries its Content-Length (Bun drops it from streamed bodies, see
 * http/range.ts). Derived data only: a missing file is made again from the blob store.
 *
 * Names are the caller's keys (immutable content: a key names one byte sequence forever). A file is
 * written under a temporary name and renamed when complete, so a reader never sees a partial file and
 * a crash leaves only a temporary file, removed at the next start. Least recently used files go first
 * when the total passes the budget; files used in the last minute are kept (they may be being sent).
 *
 * Files are not fsynced: a process that dies leaves its written pages to the kernel, so only a machine
 * crash (power, kernel) can tear a file, and that is followed by a reboot. The cache remembers the boot
 * it was written in (Linux's boot_id, in `{dir}.boot` beside the folder) and starts empty after a
 * reboot. This keeps a GiB ZIP from costing seconds of flushing before its first download can start.
 * Where no boot id can be read, every file is flushed before it is published instead.
 *
 * The cache never takes the disk's last free bytes (STORAGE_FREE_FLOOR, storage/free-space.ts): a file
 * that would leave less free space than the floor first makes room by dropping older files, else is not
 * kept (the download is then generated for its request); `giveWay` drops files whenever free space has
 * fallen under the floor (a blob about to be written, one refused for space), and a write that meets a
 * full disk is dropped, never failing the download it serves.
 */
export type FileCache = {
  /** The file's path when it is here (and marks it used). */
  find(key: string): Promise<string | undefined>;
  /**
   * The file's path, writing it from `produce` first when missing (one writer per key in this
   * process). Undefined when the cache is off or `size` alone exceeds its budget. `finish` may then
   * overwrite bytes in place (handle.write at a position) before the file is published.
   */
  ensure(key: string, size: number, produce: Produce, finish?: Finish): Promise<string | undefined>;
  /** Removes every file whose key starts with `prefix` (a deleted package). */
  forget(prefix: string): Promise<void>;
  /** Drops files, least recently used first, until the disk's free space is back above the floor (or nothing is left). */
  giveWay(): Promise<void>;
};

/** The file's bytes as a stream, or written by the producer itself at the handle's position (returning how many). */
type Produce = (() => ReadableStream<Uint8Array> | Promise<ReadableStream<Uint8Array>>) | { writeInto(handle: FileHandle): Promise<number> };
type Finish = (handle: FileHandle) => Promise<void>;

const TEMPORARY = '.partial-';
const recentlyUsedMs = 60_000;
const keyPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

function checkKey(key: string): string {
  if (!keyPattern.test(key) || key.includes(TEMPORARY)) throw new Error(`bad file cache key ${JSON.stringify(key)}`);
  return key;
}

/** Linux's id of the running boot; undefined elsewhere. */
function currentBootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Empties the folder when its files may come from an earlier boot (then also from before a machine
 * crash, unflushed), and records this boot. True when files need no flushing (a boot id is known).
 */
function settleBoot(dir: string, bootId: string | undefined): boolean {
  const marker = join(dirname(dir), `${basename(dir)}.boot`);
  let recorded: string | undefined;
  try {
    recorded = readFileSync(marker, 'utf8').trim();
  } catch {
    recorded = undefined;
  }
  if (bootId !== undefined && recorded === bootId) return true;
  for (const name of readdirSync(dir)) rmSync(join(dir, name), { force: true });
  if (bootId === undefined) {
    rmSync(marker, { force: true });
    return false;
  }
  // The marker is flushed: it must never survive a crash that the files it vouches for did not.
  const fd = openSync(marker, 'w', 0o600);
  try {
    writeSync(fd, `${bootId}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

export function createFileCache(options: { dir: string; maxBytes: number; freeFloor?: FreeSpaceFloor; bootId?: string | null }): FileCache {
  const { dir, maxBytes } = options;
  const freeFloor = options.freeFloor ?? defaultFreeSpaceFloor;
  const writing = new Map<string, Promise<string | undefined>>();
  /** Bytes of the files being written now. */
  let reserved = 0;
  let unflushedIsSafe = false;
  if (maxBytes > 0) {
    mkdirSync(dir, { recursive: true });
    unflushedIsSafe = settleBoot(dir, options.bootId === undefined ? currentBootId() : (options.bootId ?? undefined));
    // Leftovers of a process that died while writing.
    for (const name of readdirSync(dir)) if (name.includes(TEMPORARY)) rmSync(join(dir, name), { force: true });
  }

  const pathOf = (key: string) => join(dir, checkKey(key));

  async function find(key: string): Promise<string | undefined> {
    if (maxBytes <= 0) return undefined;
    const path = pathOf(key);
    const now = new Date();
    try {
      await utimes(path, now, now);
      return path;
    } catch {
      return undefined;
    }
  }

  type CachedFile = { path: string; size: number; used: number; partial: boolean };

  /** The folder's files, least recently used first, and the bytes they hold. */
  async function listFiles(): Promise<{ files: CachedFile[]; total: number }> {
    const files: CachedFile[] = [];
    let total = 0;
    for (const name of await readdir(dir)) {
      const path = join(dir, name);
      try {
        const info = await stat(path);
        files.push({ path, size: info.size, used: info.mtimeMs, partial: name.includes(TEMPORARY) });
        total += info.size;
      } catch {
        // removed meanwhile
      }
    }
    files.sort((a, b) => a.used - b.used);
    return { files, total };
  }

  /**
   * Drops finished files, least recently used first, until `needed` bytes fit above the floor; whether
   * they do. Files in use are dropped too: the disk's room matters more than a reader that loses a race.
   */
  async function makeRoom(needed: number): Promise<boolean> {
    // Files being written take their whole size, though only part of it is on the disk yet.
    const room = async () => (await roomAboveFloor(dir, freeFloor)) - reserved;
    if ((await room()) >= needed) return true;
    for (const file of (await listFiles()).files) {
      if (file.partial) continue;
      await rm(file.path, { force: true });
      if ((await room()) >= needed) return true;
    }
    return false;
  }

  async function evict(keep: string): Promise<void> {
    const { files, total: listed } = await listFiles();
    let total = listed;
    if (total <= maxBytes) return;
    const recent = Date.now() - recentlyUsedMs;
    for (const file of files) {
      if (total <= maxBytes) break;
      // Another writer's file in progress counts against the budget but is not ours to remove.
      if (file.path === keep || file.partial || file.used > recent) continue;
      await rm(file.path, { force: true });
      total -= file.size;
    }
  }

  async function write(key: string, size: number, produce: Produce, finish: Finish | undefined): Promise<string> {
    const path = pathOf(key);
    const temporary = join(dir, `${key}${TEMPORARY}${randomBytes(6).toString('hex')}`);
    const handle = await open(temporary, 'w');
    let written = 0;
    try {
      if (typeof produce === 'function') {
        const reader = (await produce()).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          // Writes are awaited one by one: at most the producer's read-ahead is held in memory.
          for (let offset = 0; offset < value.byteLength; ) {
            const { bytesWritten } = await handle.write(value, offset, value.byteLength - offset);
            offset += bytesWritten;
          }
          written += value.byteLength;
        }
      } else {
        written = await produce.writeInto(handle);
      }
      if (written !== size) throw new Error(`file cache ${key}: produced ${written} bytes, expected ${size}`);
      await finish?.(handle);
      if (!unflushedIsSafe) await handle.datasync();
    } catch (error) {
      await handle.close().catch(() => undefined);
      await rm(temporary, { force: true });
      throw error;
    }
    await handle.close();
    await rename(temporary, path);
    await evict(path);
    return path;
  }

  /** The file written, or undefined when the disk has no room for it above the floor. */
  async function writeWithinFloor(key: string, size: number, produce: Produce, finish: Finish | undefined): Promise<string | undefined> {
    if (!(await makeRoom(size))) return undefined;
    reserved += size;
    let path: string | undefined;
    try {
      path = await write(key, size, produce, finish);
    } catch (error) {
      if (!isOutOfStorage(error)) throw error;
    } finally {
      reserved -= size;
    }
    if (path === undefined) await makeRoom(0); // the disk filled meanwhile: give it back what we hold
    return path;
  }

  return {
    find,
    async ensure(key, size, produce, finish) {
      if (maxBytes <= 0 || size > maxBytes) return undefined;
      const found = await find(key);
      if (found) return found;
      let pending = writing.get(key);
      if (!pending) {
        pending = writeWithinFloor(key, size, produce, finish).finally(() => writing.delete(key));
        writing.set(key, pending);
      }
      return pending;
    },
    async giveWay() {
      if (maxBytes > 0) await makeRoom(0);
    },
    async forget(prefix) {
      if (maxBytes <= 0) return;
      checkKey(prefix);
      for (const name of await readdir(dir)) if (name.startsWith(prefix)) await rm(join(dir, name), { force: true });
    },
  };
}

/** Bytes the cache folder holds now (tests and the benchmark). */
export function fileCacheBytes(dir: string): number {
  let total = 0;
  try {
    for (const name of readdirSync(dir)) total += statSync(join(dir, name)).size;
  } catch {
    return 0;
  }
  return total;
}
