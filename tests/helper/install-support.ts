import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addFile, addSymlink, bytesSource, concatBytes, createTree, packArchive, setExecutable, type ArchiveTree } from '../../src/shared/archive/index.ts';
import { parseRange, serveRanged } from '../../src/server/http/range.ts';
import type { Fetcher } from '../../src/helper/install/types.ts';
import { noise } from '../support/noise.ts';
export { noise };

/** Files of a test package: bytes or text; `{ link }` makes a symlink; `{ bytes, executable }` an executable. */
type TestEntry = Uint8Array | string | { link: string } | { bytes: Uint8Array | string; executable: true };
export type TestFiles = Record<string, TestEntry>;

const encoder = new TextEncoder();
const bytesOf = (content: Uint8Array | string) => (typeof content === 'string' ? encoder.encode(content) : content);

function treeOf(files: TestFiles): ArchiveTree {
  const tree = createTree();
  for (const [path, entry] of Object.entries(files)) {
    if (typeof entry === 'object' && 'link' in entry) addSymlink(tree, path, entry.link);
    else if (typeof entry === 'object' && 'executable' in entry) {
      addFile(tree, path, bytesSource(bytesOf(entry.bytes)));
      setExecutable(tree, path, true);
    } else addFile(tree, path, bytesSource(bytesOf(entry)));
  }
  return tree;
}

/** An archive packed with the shared writer (content-defined chunks; zstd when asked). */
export async function packFiles(files: TestFiles, options: { compression?: 0 | 1 } = {}): Promise<Uint8Array> {
  const packed = packArchive(treeOf(files), { compression: options.compression ?? 0 });
  const bytes = concatBytes(await Array.fromAsync(packed.stream as unknown as AsyncIterable<Uint8Array>));
  await packed.done;
  return bytes;
}

export type ArchiveServer = {
  url(name?: string): string;
  /** Replaces what a path serves. */
  set(name: string, bytes: Uint8Array): void;
  stop(): void;
};

/**
 * A loopback server of archives that answers Range like the Cartridge server: the server's own
 * serveRanged (src/server/http/range.ts). `ignoreRange` answers every request with 200 and the whole
 * body; `bytesPerSecond` streams slowly (64 KiB pieces) for tests that stop a transfer midway.
 */
export function serveArchives(options: { ignoreRange?: boolean; bytesPerSecond?: number } = {}): ArchiveServer {
  const archives = new Map<string, Uint8Array>();
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const name = new URL(request.url).pathname.slice(1);
      const bytes = archives.get(name);
      if (!bytes) return new Response('not found', { status: 404 });
      const headers = new Headers(request.headers);
      if (options.ignoreRange) headers.delete('range');
      const seen = new Request(request.url, { method: request.method, headers });
      if (options.bytesPerSecond === undefined) {
        return serveRanged(seen, { size: bytes.length, etag: '"test"', headers: {}, open: (start, end) => new Blob([bytes.subarray(start, end) as Uint8Array<ArrayBuffer>]).stream() });
      }
      const range = parseRange(headers.get('range'), bytes.length);
      if (range.kind === 'unsatisfiable') return new Response(null, { status: 416 });
      const start = range.kind === 'range' ? range.start : 0;
      const end = range.kind === 'range' ? range.end + 1 : bytes.length;
      const piece = 64 * 1024;
      const pause = (piece / options.bytesPerSecond) * 1000;
      let at = start;
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (at >= end) return controller.close();
          await Bun.sleep(pause);
          const next = Math.min(end, at + piece);
          controller.enqueue(bytes.slice(at, next));
          at = next;
        },
      });
      const replyHeaders: Record<string, string> = { 'accept-ranges': 'bytes' };
      if (range.kind === 'range') replyHeaders['content-range'] = `bytes ${start}-${end - 1}/${bytes.length}`;
      return new Response(stream, { status: range.kind === 'range' ? 206 : 200, headers: replyHeaders });
    },
  });
  return {
    url: (name = 'package.crt') => `http://127.0.0.1:${server.port}/${name}`,
    set: (name, bytes) => void archives.set(name, bytes),
    stop: () => void server.stop(true),
  };
}

export type RequestLog = { url: string; range: string | null; status: number }[];

/** A fetch that records what goes to the server (and can drop Range headers). */
export function countingFetch(): { fetch: Fetcher; requests: RequestLog } {
  const requests: RequestLog = [];
  return {
    requests,
    fetch: async (url, init = {}) => {
      const response = await fetch(url, init);
      requests.push({ url, range: new Headers(init.headers).get('range'), status: response.status });
      return response;
    },
  };
}

const tempDirs: string[] = [];
export function tempDir(prefix = 'install-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}
export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A workdir and its private folder, side by side in a temporary folder. */
export function workdir(): { dir: string; metaDir: string; root: string } {
  const root = tempDir();
  return { root, dir: join(root, 'game'), metaDir: join(root, '.cartridge', 'w1') };
}

export type DiskEntry = { kind: 'file'; sha256: string; mode: number } | { kind: 'link'; target: string };

/** What dir holds: files (hash, permission bits) and links, by path; folders implied. */
export function readDisk(dir: string, prefix = ''): Record<string, DiskEntry> {
  const out: Record<string, DiskEntry> = {};
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    const full = join(dir, path);
    if (entry.isSymbolicLink()) out[path] = { kind: 'link', target: readlinkSync(full) };
    else if (entry.isDirectory()) Object.assign(out, readDisk(dir, path));
    else out[path] = { kind: 'file', sha256: new Bun.CryptoHasher('sha256').update(readFileSync(full)).digest('hex'), mode: lstatSync(full).mode & 0o777 };
  }
  return out;
}

/** What readDisk should find for a package's files. */
export function expectedDisk(files: TestFiles): Record<string, DiskEntry> {
  const out: Record<string, DiskEntry> = {};
  for (const [path, entry] of Object.entries(files)) {
    if (typeof entry === 'object' && 'link' in entry) out[path] = { kind: 'link', target: entry.link };
    else if (typeof entry === 'object' && 'executable' in entry) {
      out[path] = { kind: 'file', sha256: new Bun.CryptoHasher('sha256').update(bytesOf(entry.bytes)).digest('hex'), mode: 0o755 };
    } else out[path] = { kind: 'file', sha256: new Bun.CryptoHasher('sha256').update(bytesOf(entry)).digest('hex'), mode: 0o644 };
  }
  return out;
}

export function sizeOf(files: TestFiles): number {
  let size = 0;
  for (const entry of Object.values(files)) {
    if (typeof entry === 'object' && 'link' in entry) continue;
    size += bytesOf(typeof entry === 'object' && 'executable' in entry ? entry.bytes : entry).length;
  }
  return size;
}
