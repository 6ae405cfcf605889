
/** Spec §4 package upload statuses, in the order a package goes through them. */
const packageUploadStatuses = [
  'existing',
  'queued',
  'packing',
  'creating',
  'create_retrying',
  'splitting',
  'uploading',
  'finalizing',
  'finalize_retrying',
  'resolving',
  'resolve_retrying',
  'done',
  'errored',
] as const;
export type PackageUploadStatus = (typeof packageUploadStatuses)[number];

/** Spec §4 part statuses. */
const partStatuses = ['queued', 'hashing', 'upload_queued', 'uploading', 'upload_retrying', 'upload_finalizing', 'upload_errored', 'done'] as const;
export type PartStatus = (typeof partStatuses)[number];

/** The statuses after which nothing more happens to a package. */
export function isFinished(status: PackageUploadStatus): boolean {
  return status === 'existing' || status === 'done' || status === 'errored';
}

/** The *_retrying statuses: a create, finalize or resolve call failed and waits for its next try. */
export function isRetrying(status: PackageUploadStatus): boolean {
  return status === 'create_retrying' || status === 'finalize_retrying' || status === 'resolve_retrying';
}

/** What the upload of one package reports, and what the UI shows. */
export type PackageUploadState = {
  status: PackageUploadStatus;
  /** 0..1, rounded to 3 decimals (spec §9): acknowledged bytes over the archive size. */
  progress: number;
  /** Bytes of the archive to upload (known after packing), and of part bodies sent and acknowledged in this run. */
  size: number | null;
  sentBytes: number;
  /** Stored bytes of the chunks the base lacks (a patch), else of all chunks. */
  patchSize: number | null;
  /** Parts by number: their status. */
  parts: PartStatus[];
  /** The package id: the created record, or for a resolved patch the resulting package. */
  packageId: string | null;
  /** The error code (spec §8) when errored. */
  error: string | null;
};

export function initialUploadState(): PackageUploadState {
  return { status: 'queued', progress: 0, size: null, sentBytes: 0, patchSize: null, parts: [], packageId: null, error: null };
}

export function roundProgress(done: number, total: number): number {
  if (!(total > 0)) return 0;
  return Math.min(1, Math.round((done / total) * 1000) / 1000);
}
