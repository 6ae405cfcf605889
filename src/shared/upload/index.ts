export { PART_UPLOAD_CONCURRENCY, UPLOAD_RETRY_DELAY_MS, UPLOAD_TRIES } from './constants.ts';
export { responseError, TriedFewTimesError, UploadRequestError } from './errors.ts';
export { blobPartSource, countParts, missingParts, partRange, splitStream, type PartDescriptor, type PartSource } from './parts.ts';
export { sleep, withRetries, type RetryOptions } from './retry.ts';
export { sha1Hex } from './sha1.ts';
export { partUrl, sendPart, uploadParts, type SendPartOptions, type UploadPartsOptions, type UploadPartsResult, type UploadTarget } from './uploader.ts';
