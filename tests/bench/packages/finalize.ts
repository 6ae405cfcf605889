import { closeSync, fsyncSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import type { ArchiveParts } from './upload.ts';

/**
 * Finalize, apart from the version and publish calls that follow it in the CLI (whose log has no line
 * between them): the server's own request log (LOG_LEVEL=info, one JSON line per request with its
 * handling time `ms`) for PUT …/packages/{id}/finalize. Several lines when the client retried: all are
 * summed, the statuses listed.
 */
export type FinalizeTiming = { ms: number; calls: number; statuses: number[] };

export function finalizeFromLog(log: string, packageId: string): FinalizeTiming | undefined {
  const calls: { ms: number; status: number }[] = [];
  for (const line of log.split('\n')) {
    if (!line.includes('"request"') || !line.includes(`/packages/${packageId}/finalize`)) continue;
    try {
      const entry = JSON.parse(line) as { message?: string; method?: string; path?: string; status?: number; ms?: number };
      if (entry.message === 'request' && entry.method === 'PUT' && typeof entry.ms === 'number') calls.push({ ms: entry.ms, status: entry.status ?? 0 });
    } catch {
      // not a log line of ours
    }
  }
  if (calls.length === 0) return undefined;
  return { ms: calls.reduce((sum, call) => sum + call.ms, 0), calls: calls.length, statuses: calls.map((call) => call.status) };
}

export type Floor = { bytes: number; sha256Ms: number; writeMs: number };

/**
 * What finalize cannot beat on this machine, on the same bytes (the archive's part files, warm in the
 * page cache as the server's uploaded parts are): SHA-256 of every byte (finalize verifies each chunk's
 * hash) and writing them to a file beside them with one fsync at the end (the stored copy; the file store
 * fsyncs every blob). Both read the parts first.
 */
export async function measureFloor(archive: ArchiveParts, scratchPath: string): Promise<Floor> {
  // One reused buffer: what is timed is reading, hashing and writing, not allocating.
  const buffer = new Uint8Array(Math.max(...archive.parts.map((part) => part.size), 1));
  const eachPart = (use: (data: Uint8Array) => void): number => {
    let bytes = 0;
    for (const part of archive.parts) {
      const fd = openSync(part.path, 'r');
      try {
        let filled = 0;
        for (let read = -1; read !== 0 && filled < buffer.length; filled += read) read = readSync(fd, buffer, filled, buffer.length - filled, null);
        use(buffer.subarray(0, filled));
        bytes += filled;
      } finally {
        closeSync(fd);
      }
    }
    return bytes;
  };
  // Warm: the buffer's pages mapped, the hasher's code run once.
  buffer.fill(1);
  new Bun.CryptoHasher('sha256').update(buffer).digest();
  const hashStarted = performance.now();
  const hasher = new Bun.CryptoHasher('sha256');
  const bytes = eachPart((data) => hasher.update(data));
  hasher.digest();
  const sha256Ms = performance.now() - hashStarted;
  const writeStarted = performance.now();
  const out = openSync(scratchPath, 'w');
  try {
    eachPart((data) => {
      for (let offset = 0; offset < data.length; ) offset += writeSync(out, data, offset, data.length - offset);
    });
    fsyncSync(out);
  } finally {
    closeSync(out);
  }
  const writeMs = performance.now() - writeStarted;
  rmSync(scratchPath, { force: true });
  return { bytes, sha256Ms, writeMs };
}
