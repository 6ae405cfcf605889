export { fetchBaseIndex } from './base-index.ts';
export { blobPartSource, missingParts, rangeParts, splitStream, type PartDescriptor } from './parts.ts';
export type { UploadPersistence, UploadRecord } from './record.ts';
export {
  runUploadSession,
  type PreparedArchive,
  type UploadOutcome,
  type UploadSessionOptions,
} from './session.ts';
export { sha1Hex } from './sha1.ts';
export type { PackageUploadState } from './statuses.ts';
export { uploadParts } from './uploader.ts';
