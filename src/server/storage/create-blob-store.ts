import { isAbsolute, join, resolve } from 'node:path';
import { maxStorePrefixLength, validateBlobPrefix, type BlobStore } from './blob-store.ts';
import { createFileBlobStore } from './file-store.ts';
import { createS3BlobStore, type S3BlobStoreOptions } from './s3-store.ts';

export type BlobStoreLocation =
  | { kind: 'file'; root: string }
  | ({ kind: 's3' } & Omit<S3BlobStoreOptions, 'partSize' | 'queueSize' | 'listPageSize'>);

const bucketName = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Reads STORAGE_URL (and the S3_* variables for s3://):
 * - `file:` → DATA_DIR/blobs; `file:/abs/path`, `file:///abs/path`, `file:relative` (to the
 *   working directory).
 * - `s3://bucket` or `s3://bucket/some/prefix` with S3_ENDPOINT, S3_REGION (us-east-1),
 *   S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY (both required), S3_SESSION_TOKEN,
 *   S3_VIRTUAL_HOSTED_STYLE (false). AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION and
 *   AWS_SESSION_TOKEN stand in for their S3_* twins when those are unset.
 * Throws an Error naming the variable at fault.
 */
export function parseBlobStoreUrl(
  url: string,
  options: { dataDir: string; env?: Record<string, string | undefined> },
): BlobStoreLocation {
  if (url.startsWith('file:')) {
    let path = url.slice('file:'.length);
    if (path.startsWith('//')) {
      if (!path.startsWith('///')) throw new Error(`Invalid STORAGE_URL "${url}": file URLs name no host (file:///path)`);
      path = path.slice(2);
    }
    if (path === '') return { kind: 'file', root: join(options.dataDir, 'blobs') };
    return { kind: 'file', root: isAbsolute(path) ? path : resolve(path) };
  }
  if (url.startsWith('s3://')) {
    const rest = url.slice('s3://'.length);
    const slash = rest.indexOf('/');
    const bucket = slash === -1 ? rest : rest.slice(0, slash);
    let prefix = slash === -1 ? '' : rest.slice(slash + 1).replace(/\/+$/, '');
    if (!bucketName.test(bucket)) throw new Error(`Invalid STORAGE_URL "${url}": bad bucket name`);
    if (prefix !== '') {
      prefix += '/';
      try {
        validateBlobPrefix(prefix);
      } catch {
        throw new Error(`Invalid STORAGE_URL "${url}": the key prefix may use a-z A-Z 0-9 / . _ - only`);
      }
      if (prefix.length > maxStorePrefixLength) {
        throw new Error(`Invalid STORAGE_URL "${url}": the key prefix may be ${maxStorePrefixLength - 1} characters at most`);
      }
    }
    const env = options.env ?? process.env;
    const text = (name: string) => {
      const value = env[name]?.trim();
      return value === undefined || value === '' ? undefined : value;
    };
    const endpoint = text('S3_ENDPOINT');
    if (endpoint !== undefined && !/^https?:\/\/[^/]/.test(endpoint)) {
      throw new Error(`Invalid S3_ENDPOINT "${endpoint}": must start with http:// or https://`);
    }
    // Bun.S3Client has no other credential source (no instance roles), so require them up front.
    const accessKeyId = text('S3_ACCESS_KEY_ID') ?? text('AWS_ACCESS_KEY_ID');
    const secretAccessKey = text('S3_SECRET_ACCESS_KEY') ?? text('AWS_SECRET_ACCESS_KEY');
    if (accessKeyId === undefined) throw new Error(`STORAGE_URL "${url}" needs S3_ACCESS_KEY_ID`);
    if (secretAccessKey === undefined) throw new Error(`STORAGE_URL "${url}" needs S3_SECRET_ACCESS_KEY`);
    return {
      kind: 's3',
      bucket,
      prefix,
      endpoint,
      region: text('S3_REGION') ?? text('AWS_REGION') ?? 'us-east-1',
      accessKeyId,
      secretAccessKey,
      sessionToken: text('S3_SESSION_TOKEN') ?? text('AWS_SESSION_TOKEN'),
      virtualHostedStyle: parseBoolean('S3_VIRTUAL_HOSTED_STYLE', text('S3_VIRTUAL_HOSTED_STYLE')),
    };
  }
  throw new Error(`Invalid STORAGE_URL "${url}": must be file:, file:/path or s3://bucket[/prefix]`);
}

export function createBlobStore(
  url: string,
  options: { dataDir: string; env?: Record<string, string | undefined> },
): BlobStore {
  const location = parseBlobStoreUrl(url, options);
  switch (location.kind) {
    case 'file':
      return createFileBlobStore({ root: location.root });
    case 's3': {
      const { kind: _kind, ...s3Options } = location;
      return createS3BlobStore(s3Options);
    }
    default: {
      const never: never = location;
      throw new Error(`Unknown blob store ${JSON.stringify(never)}`);
    }
  }
}

function parseBoolean(name: string, value: string | undefined): boolean {
  if (value === undefined) return false;
  const lower = value.toLowerCase();
  if (['true', '1', 'yes'].includes(lower)) return true;
  if (['false', '0', 'no'].includes(lower)) return false;
  throw new Error(`Invalid ${name}="${value}": must be true or false`);
}
