/** Failures of the install engine that are not archive failures (those are ArchiveError, src/shared/archive). */
const engineErrorCodes = [
  /** Another engine call holds the workdir (its metaDir's lock). */
  'busy',
  /** repairWorkdir on a workdir without a receipt. */
  'not_installed',
  /** The file system lacks room for the files to produce. */
  'no_space',
  /** dir and metaDir overlap, or a path from the index would leave dir. */
  'bad_folders',
  /** The metaDir's receipt or journal cannot be read (damaged by hand?). */
  'bad_meta',
] as const;

export type EngineErrorCode = (typeof engineErrorCodes)[number];

export class EngineError extends Error {
  readonly code: EngineErrorCode;
  readonly path?: string;

  constructor(code: EngineErrorCode, message: string, options: { path?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EngineError';
    this.code = code;
    if (options.path !== undefined) this.path = options.path;
  }
}
