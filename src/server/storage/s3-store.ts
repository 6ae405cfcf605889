import { S3Client, type S3File } from 'bun';
import { AppError } from '../errors.ts';
import {
  knownBodySize,
  maxStorePrefixLength,
  validateBlobKey,
  validateBlobPrefix,
  validateByteRange,
  type BlobBody,
  type BlobStat,
  type BlobStore,
  type ByteRange,
  type PresignOptions,
} from './blob-store.ts';

export type S3BlobStoreOptions = {
  bucket: string;
  /** Prepended to every key ('' or ending in '/'), so several installs can share a bucket. */
  prefix?: string;
  /** Service endpoint without the bucket, e.g. http://127.0.0.1:9000; unset means AWS. */
  endpoint?: string;
  region?: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** false (default): http://endpoint/bucket/key, what self-hosted servers expect. */
  virtualHostedStyle?: boolean;
  /** Multipart part size for streamed puts (≥ 5 MiB); memory per put ≈ partSize × queueSize. */
  partSize?: number;
  queueSize?: number;
  /** Keys per ListObjectsV2 request (S3 caps it at 1000). */
  listPageSize?: number;
};

const defaultPartSize = 8 * 1024 * 1024;
const defaultQueueSize = 2;

/**
 * Blobs in an S3-compatible bucket through Bun.S3Client. A streamed put of unknown length goes
 * through a multipart upload with bounded memory; if the body stream errors, Bun aborts the upload
 * and nothing appears under the key (S3 makes an object visible only when its upload completes).
 */
export function createS3BlobStore(options: S3BlobStoreOptions): BlobStore {
  const prefix = options.prefix ?? '';
  if (prefix !== '' && !prefix.endsWith('/')) throw new Error('S3 key prefix must end with "/"');
  if (prefix.length > maxStorePrefixLength) throw new Error(`S3 key prefix is longer than ${maxStorePrefixLength}`);
  const partSize = options.partSize ?? defaultPartSize;
  const queueSize = options.queueSize ?? defaultQueueSize;
  const listPageSize = options.listPageSize ?? 1000;
  const virtualHostedStyle = options.virtualHostedStyle ?? false;
  const client = new S3Client({
    bucket: options.bucket,
    region: options.region ?? 'us-east-1',
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    sessionToken: options.sessionToken,
    virtualHostedStyle,
    // Bun ignores `bucket` when virtual-hosted with an explicit endpoint: put it in the host.
    endpoint:
      options.endpoint !== undefined && virtualHostedStyle
        ? withBucketHost(options.endpoint, options.bucket)
        : options.endpoint,
  });
  const fullKey = (key: string) => prefix + validateBlobKey(key);

  const store: BlobStore = {
    kind: 's3',

    async put(key: string, body: BlobBody, putOptions?: { contentType?: string }): Promise<{ size: number }> {
      const path = fullKey(key);
      const type = putOptions?.contentType ?? 'application/octet-stream';
      const size = knownBodySize(body);
      if (size !== undefined) {
        await client.write(path, body as string | Uint8Array | Blob, { type });
        return { size };
      }
      // Wrapped in a Response, a stream of unknown length is uploaded part by part (verified:
      // memory stays near partSize × queueSize, and a failing stream aborts the upload).
      const written = await client.write(path, new Response(body as ReadableStream<Uint8Array>), {
        type,
        partSize,
        queueSize,
      });
      return { size: written };
    },

    async get(key: string, range?: ByteRange): Promise<ReadableStream<Uint8Array>> {
      const file = client.file(fullKey(key));
      validateByteRange(range);
      let part: S3File = file;
      if (range !== undefined && (range.start > 0 || range.end !== undefined)) {
        part = range.end === undefined ? file.slice(range.start) : file.slice(range.start, range.end + 1);
      }
      // Read the first chunk now so a missing key rejects here, not in the caller's stream.
      const reader: ChunkReader & { releaseLock(): void } = part.stream().getReader();
      let first: Awaited<ReturnType<ChunkReader['read']>>;
      try {
        first = await reader.read();
      } catch (error) {
        reader.releaseLock();
        if (isS3Code(error, 'NoSuchKey', 'NotFound')) throw new AppError('not_found', 'Blob not found');
        if (isS3Code(error, 'InvalidRange')) return emptyStream(); // start at or past the end
        throw error;
      }
      return resumeStream(first, reader);
    },

    async read(key: string, range?: ByteRange): Promise<Uint8Array> {
      return new Uint8Array(await new Response(await store.get(key, range)).arrayBuffer());
    },

    async stat(key: string): Promise<BlobStat | undefined> {
      try {
        const info = await client.stat(fullKey(key));
        return { size: info.size, modified: info.lastModified };
      } catch (error) {
        if (isS3Code(error, 'NoSuchKey', 'NotFound')) return undefined;
        throw error;
      }
    },

    async delete(key: string): Promise<void> {
      try {
        await client.delete(fullKey(key));
      } catch (error) {
        if (isS3Code(error, 'NoSuchKey', 'NotFound')) return; // S3 itself says 204; some servers 404
        throw error;
      }
    },

    async *list(listPrefix: string): AsyncGenerator<{ key: string; size: number }> {
      validateBlobPrefix(listPrefix);
      yield* listPages(client, prefix, prefix + listPrefix, listPageSize);
    },

    presign(key: string, presignOptions?: PresignOptions): string {
      return client.presign(fullKey(key), {
        expiresIn: presignOptions?.expiresIn ?? 3600,
        method: presignOptions?.method ?? 'GET',
        ...(presignOptions?.contentDisposition === undefined
          ? {}
          : { contentDisposition: presignOptions.contentDisposition }),
      });
    },
  };
  return store;
}

async function* listPages(
  client: S3Client,
  storePrefix: string,
  prefix: string,
  pageSize: number,
): AsyncGenerator<{ key: string; size: number }> {
  let continuationToken: string | undefined;
  do {
    const page = await client.list({
      prefix,
      maxKeys: pageSize,
      ...(continuationToken === undefined ? {} : { continuationToken }),
    });
    for (const entry of page.contents ?? []) {
      yield { key: entry.key.slice(storePrefix.length), size: entry.size ?? 0 };
    }
    if (page.isTruncated && !page.nextContinuationToken) {
      throw new Error('S3 listing is truncated but has no continuation token');
    }
    continuationToken = page.isTruncated ? page.nextContinuationToken : undefined;
  } while (continuationToken !== undefined);
}

type ChunkReader = {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
};

/** A stream that yields `first` (already read) and then the rest of `reader`. */
function resumeStream(first: Awaited<ReturnType<ChunkReader['read']>>, reader: ChunkReader): ReadableStream<Uint8Array> {
  let pending: typeof first | undefined = first;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const result = pending ?? (await reader.read());
      pending = undefined;
      if (result.done) controller.close();
      else controller.enqueue(result.value);
    },
    async cancel(reason) {
      await reader.cancel(reason);
    },
  });
}

function emptyStream(): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.close();
    },
  });
}

function isS3Code(error: unknown, ...codes: string[]): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    codes.includes(error.code)
  );
}

/** http://host:port + bucket → http://bucket.host:port (path kept). */
function withBucketHost(endpoint: string, bucket: string): string {
  const url = new URL(endpoint);
  url.hostname = `${bucket}.${url.hostname}`;
  return url.toString().replace(/\/$/, '');
}
