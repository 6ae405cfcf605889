/**
 * Passes over a package's bytes (finalize, CRC-32s, the ZIP file, torrent hashing, downloads
 * generated from chunks) allocate one buffer per chunk or piece and drop it at once. JavaScriptCore
 * frees such buffers only when a collection runs, and its heuristics wait too long for them: measured
 * on a 512 MiB package, each pass raised the process's RSS by 350 MB to 1.2 GB of garbage.
 *
 * So a collection is asked for every so many bytes of such buffers. A concurrent one (Bun.gc(false))
 * does not block, and is enough while the process is small; with the server's heap behind it, it
 * falls behind a pass running at gigabytes per second (torrent hashing of a 1 GiB ZIP: 516 MB peak).
 * Above `syncAboveBytes` of RSS the collection is synchronous (Bun.gc(true): 25–45 ms with the
 * server's heap): same pass, 217 MB peak. One process-wide counter: concurrent passes share the pace.
 */
const collectEveryBytes = 64 * 1024 * 1024;
const syncAboveBytes = 160 * 1024 * 1024;
let sinceCollection = 0;

/** Records bytes of buffers that are garbage once the caller is done with them. */
export function noteTransientBytes(bytes: number): void {
  sinceCollection += bytes;
  if (sinceCollection < collectEveryBytes) return;
  sinceCollection = 0;
  Bun.gc(process.memoryUsage.rss() > syncAboveBytes);
}
