export {
  maxBlobKeyLength,
  maxBlobKeySegmentLength,
  maxStorePrefixLength,
  validateBlobKey,
  validateBlobPrefix,
  validateByteRange,
  type BlobBody,
  type BlobFile,
  type BlobStat,
  type BlobStore,
  type ByteRange,
  type PresignOptions,
} from './blob-store.ts';
export { createBlobStore, parseBlobStoreUrl, type BlobStoreLocation } from './create-blob-store.ts';
export { createFileBlobStore, type FileBlobStoreOptions } from './file-store.ts';
export { createS3BlobStore, type S3BlobStoreOptions } from './s3-store.ts';
export { createFileCache, fileCacheBytes, type FileCache } from './file-cache.ts';
export { isOutOfStorage, outOfStorage } from './out-of-storage.ts';
export { withCacheGivingWay } from './cache-gives-way.ts';
export { parseFreeSpaceFloor, roomAboveFloor, type FreeSpaceFloor } from './free-space.ts';
