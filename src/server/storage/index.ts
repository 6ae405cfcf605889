export {
  maxBlobKeyLength,
  validateBlobKey,
  validateBlobPrefix,
  type BlobFile,
  type BlobStore,
} from './blob-store.ts';
export { createBlobStore, parseBlobStoreUrl } from './create-blob-store.ts';
export { createFileBlobStore } from './file-store.ts';
export { createS3BlobStore, type S3BlobStoreOptions } from './s3-store.ts';
export { createFileCache, fileCacheBytes, type FileCache } from './file-cache.ts';
export { withCacheGivingWay } from './cache-gives-way.ts';
