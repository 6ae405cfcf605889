/**
 * Passes over a package's bytes (finalize, CRC-32s, the ZIP file, downloads generated from chunks)
 * allocate one buffer per chunk and drop it at once. JavaScriptCore frees such buffers only when a
 * collection runs, and its heuristics wait too long for them: measured on a 512 MiB package, each
 * pass raised the process's RSS by 350 MB to 1.2 GB of garbage. Asking for a concurrent collection
 * (Bun.gc(false): it does not block) every so many bytes of such buffers kept the peak within
 * 70–240 MB of the live set. One process-wide counter: concurrent passes share the pace.
 */
const collectEveryBytes = 64 * 1024 * 1024;
let sinceCollection = 0;

/** Records bytes of buffers that are garbage once the caller is done with them. */
export function noteTransientBytes(bytes: number): void {
  sinceCollection += bytes;
  if (sinceCollection < collectEveryBytes) return;
  sinceCollection = 0;
  Bun.gc(false);
}
