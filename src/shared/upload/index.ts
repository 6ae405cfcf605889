export { fetchBaseIndex } from './base-index.ts';
export { HASHING_CONCURRENCY, PACKAGING_CONCURRENCY, PART_UPLOAD_CONCURRENCY, PARTS_IN_MEMORY, RESOLVE_POLL_MS, UPLOAD_RETRY_DELAY_MS, UPLOAD_TRIES } from './constants.ts';
export { createLimiter, type Limiter } from '../limiter.ts';
export { uploadPartStream, type PartPipelineOptions } from './part-pipeline.ts';
export { blobPartSource, countParts, missingParts, partRange, rangeParts, splitStream, type PartDescriptor, type PartInput, type PartSource } from './parts.ts';
export { noPersistence, type UploadPersistence, type UploadRecord } from './record.ts';
export { sendPart, type SendPartOptions, type UploadTarget } from './send-part.ts';
export {
  createUploadLimiters,
  runUploadSession,
  type PackageRequest,
  type PreparedArchive,
  type UploadLimiters,
  type UploadOutcome,
  type UploadProgress,
  type UploadSessionOptions,
} from './session.ts';
export { sha1Hex } from './sha1.ts';
export {
  initialUploadState,
  isFinished,
  isRetrying,
  packageUploadStatuses,
  partStatuses,
  roundProgress,
  type PackageUploadState,
  type PackageUploadStatus,
  type PartStatus,
} from './statuses.ts';
export { uploadParts, type UploadPartsOptions, type UploadPartsResult } from './uploader.ts';
