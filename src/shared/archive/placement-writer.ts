// Node/Bun only (node:fs): kept out of the core index so browser bundles never see it.
import { closeSync, openSync, writeSync } from 'node:fs';

export type PlacementWriterOptions = {
  /** Open files kept at once (default 16): chunk data mostly walks files in order, dedup jumps back. */
  maxOpenFiles?: number;
};

/**
 * Writes chunk bytes at offsets of existing files (the extractor's and the companion app's write path).
 * The files must exist (created at their final size by the caller); paths are trusted here: callers
 * check them against their root first. Writes are synchronous: with one chunk (≤ 256 KiB) per call, a
 * blocking pwrite costs less than a promise round trip per write.
 */
export class PlacementWriter {
  private readonly handles = new Map<string, number>();
  private readonly limit: number;

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
    if (this.handles.size >= this.limit) {
      const [oldestPath, oldest] = this.handles.entries().next().value!;
      this.handles.delete(oldestPath);
      closeSync(oldest);
    }
    const fd = openSync(path, 'r+');
    this.handles.set(path, fd);
    return fd;
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
