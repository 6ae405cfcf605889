/**
 * The contract between the helper's methods (src/helper/methods) and its install engine
 * (src/helper/install/engine.ts). The engine makes a workdir folder equal to a package's archive and
 * keeps a receipt (the installed index) beside it; it knows nothing of HTTP requests from the page,
 * workspaces or the state file.
 *
 * Folders: `dir` is the workdir (only the package's files live there); `metaDir` is the workdir's private
 * folder on the same file system (receipt, staging, journal), never inside `dir`.
 */
export type Fetcher = (url: string, init?: RequestInit) => Promise<Response>;

export type TransitionProgress = { done: number; total: number };

export type EngineStats = {
  /** Bytes received over the network (index and chunk data, gaps included). */
  bytesFetched: number;
  /** HTTP requests made (index and Range requests). */
  requests: number;
  /** Bytes of files taken from what was already on disk (unchanged files, reused chunks). */
  bytesReused: number;
  /** Bytes written into the workdir. */
  bytesWritten: number;
  /**
   * How the target index came (transitions only): 'archive' read from the archive by Range, 'index' the
   * whole index from indexUrl, 'dcz' a delta against the receipt from indexUrl, 'receipt' not needed
   * (the archive's hash is the installed one). `bytes`: what its requests received (archive header and
   * hash included).
   */
  index?: { via: 'archive' | 'index' | 'dcz' | 'receipt'; bytes: number };
};

export type InstalledPackage = {
  /** SHA-256 (hex) of the installed archive index. */
  indexHash: string;
  /** Bytes of all files. */
  size: number;
  /** Number of files. */
  files: number;
};

export type TransitionOptions = {
  dir: string;
  metaDir: string;
  /** The archive's URL (signed; answers Range requests). */
  packageUrl: string;
  /**
   * The same package's index URL (signed, GET .../download?filter=index), optional. With a receipt the
   * index is fetched from it offering the receipt as a dictionary (RFC 9842 dcz: a delta of the changed
   * entries instead of the whole index) and checked against the archive's header and index hash (two
   * small Range requests). Without a receipt, or when that fails, the index is read from the archive.
   */
  indexUrl?: string;
  fetch?: Fetcher;
  signal?: AbortSignal;
  /** Called often (at least every few MB); done and total in bytes. */
  onProgress?: (progress: TransitionProgress) => void;
};

export type TransitionResult = InstalledPackage & { stats: EngineStats };

export type RepairOptions = {
  dir: string;
  metaDir: string;
  /** Where damaged or missing chunks are fetched from (a fresh signed URL of the installed package). */
  packageUrl: string;
  fetch?: Fetcher;
  signal?: AbortSignal;
  onProgress?: (progress: TransitionProgress) => void;
};

export type RepairResult = InstalledPackage & {
  stats: EngineStats;
  /** Paths ('a/b/c') that were damaged or missing and were restored. */
  repaired: string[];
};

/**
 * What src/helper/install/engine.ts exports (implemented there):
 *
 *   transitionWorkdir(options: TransitionOptions): Promise<TransitionResult>
 *     install (empty dir) or update (receipt present) or resume (staging/journal present); an abort
 *     leaves the old files launchable and the staging kept for the next call.
 *   repairWorkdir(options: RepairOptions): Promise<RepairResult>
 *   recoverWorkdir(options: { dir: string; metaDir: string }): Promise<InstalledPackage | undefined>
 *     no network: finishes a swap that a crash interrupted (or leaves the old version); called at
 *     helper start for every workdir that was installing. undefined when nothing is installed.
 *   readInstalled(metaDir: string): Promise<InstalledPackage | undefined>   // from the receipt
 *   removeWorkdirFiles(options: { dir: string; metaDir: string }): Promise<void>   // uninstall
 */
