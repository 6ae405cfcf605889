import type { StartedJob } from '../schemas/jobs.ts';
import type { PackageStatusName, UploadInfo } from '../schemas/packages.ts';
import type { PartDescriptor } from './parts.ts';

/**
 * What an interrupted upload needs to continue: the record create made (its token valid until it
 * expires), the archive size it was made for, the parts the server acknowledged, and once finalize
 * answered its status and the resolve job of a patch. The browser keeps it in localStorage under the
 * draft's fingerprint, the command line in its push-state file next to the packed archive.
 */
export type UploadRecord = {
  packageId: string;
  uploadInfo: UploadInfo;
  size: number;
  parts: PartDescriptor[];
  finalized?: { status: PackageStatusName };
  resolveJob?: StartedJob;
};

/**
 * Where a session writes its record as it changes, so a reload or a killed process continues from
 * there. Each write is awaited before the step counts: a part is saved before it is reported.
 */
export type UploadPersistence = {
  /** The record was made, finalized, or its resolve job started. */
  save(record: UploadRecord): void | Promise<void>;
  /** One more part acknowledged (already in record.parts). */
  savePart(descriptor: PartDescriptor, record: UploadRecord): void | Promise<void>;
  /** The record can never be continued (gone from the server, replaced, cancelled): forget it. */
  forget(): void | Promise<void>;
};

/** Nothing kept: an upload that cannot be resumed. */
export const noPersistence: UploadPersistence = { save: () => {}, savePart: () => {}, forget: () => {} };
