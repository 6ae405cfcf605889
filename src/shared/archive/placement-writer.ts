// Node/Bun only (node:fs): kept out of the core index so browser bundles never see it.
import { closeSync, constants, fchmodSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';

export type PlacementWriterOptions = {
  /** Open files kept at once (default 16): chunk data mostly walks files in order, dedup jumps back. */
  maxOpenFiles?: number;
};

/**
 * Writes chunk bytes at offsets of files (the extractor's and the companion app's write path). Files are
 * created here (`create`, O_EXCL) or must exist; paths are trusted here: callers check them against
 * their root first. Writes are synchronous: with one chunk (≤ 256 KiB) per call, a blocking pwrite
 * costs less than a promise round trip per write (and measured faster than queueing writes on other
 * threads: extraction is bound by the two cores hashing and writing, see docs/benchmarks.md).
 */
export class PlacementWriter {
  private readonly handles = new Map<string, number>();
  private readonly limit: number;
  /** Per mode: whether open() alone gives it exactly (the umask leaves it), learnt from the first file. */
  private readonly exactModes = new Map<number, boolean>();

  constructor(options: PlacementWriterOptions = {}) {
    this.limit = Math.max(1, options.maxOpenFiles ?? 16);
  }

  private handle(path: string): number {
    const open = this.handles.get(path);
    if (open !== undefined) {
      this.handles.delete(path);
      this.handles.set(path, open);
      return open;
    }
    const fd = openSync(path, 'r+');
    this.keep(path, fd);
    return fd;
  }

  /** Adds an open descriptor, closing the least recently used one beyond the limit. */
  private keep(path: string, fd: number): void {
    if (this.handles.size >= this.limit) {
      const [oldestPath, oldest] = this.handles.entries().next().value!;
      this.handles.delete(oldestPath);
      try {
        closeSync(oldest);
      } catch (error) {
        closeSync(fd);
        throw error;
      }
    }
    this.handles.set(path, fd);
  }

  /**
   * Creates a new file at `path` and keeps it open for writes: O_CREAT | O_EXCL, so an existing name (a
   * planted link included) fails with EEXIST instead of being followed. `mode` is set exactly: when the
   * umask narrowed it (checked once per mode with fstat) fchmod sets it. `size` > 0 sets the length up
   * front (ftruncate). In the common case one system call per file.
   */
  create(path: string, mode: number, size = 0): void {
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
    try {
      let exact = this.exactModes.get(mode);
      if (exact === undefined) {
        exact = (fstatSync(fd).mode & 0o7777) === mode;
        this.exactModes.set(mode, exact);
      }
      if (!exact) fchmodSync(fd, mode);
      if (size > 0) ftruncateSync(fd, size);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    this.keep(path, fd);
  }

  /** Writes all of `bytes` at `offset` of the file at `path`. */
  write(path: string, offset: number, bytes: Uint8Array): void {
    const fd = this.handle(path);
    let written = 0;
    while (written < bytes.length) {
      written += writeSync(fd, bytes, written, bytes.length - written, offset + written);
    }
  }

  /** Closes one file (before it is renamed or its mode changed on systems that care). */
  closeFile(path: string): void {
    const fd = this.handles.get(path);
    if (fd === undefined) return;
    this.handles.delete(path);
    closeSync(fd);
  }

  closeAll(): void {
    for (const fd of this.handles.values()) {
      try {
        closeSync(fd);
      } catch {
        // Already closed.
      }
    }
    this.handles.clear();
  }
}
