import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { formatSize } from '../../shared/format/size.ts';
import { AppError } from '../errors.ts';
import { parseBlobStoreUrl, validateBlobKey, type BlobStore } from '../storage/index.ts';
import { BackupRefusal, blobListFile, blobsFolder, counted } from './backup-format.ts';
import { eachLimited } from '../../shared/limiter.ts';

/** Blobs read or written at once: S3 answers each request in tens of milliseconds, a disk in less. */
const blobsAtOnce = 4;
const progressEveryMs = 10_000;

export type Progress = (line: string) => void;

/** "the file store /srv/blobs" / "the S3 store s3://bucket/prefix" (STORAGE_URL carries no credentials). */
export function describeStore(storageUrl: string, dataDir: string): string {
  const location = parseBlobStoreUrl(storageUrl, { dataDir });
  return location.kind === 'file' ? `the file store ${location.root}` : `the S3 store s3://${location.bucket}${location.prefix ? `/${location.prefix.replace(/\/$/, '')}` : ''}`;
}

/** The file store's folder (to keep a backup folder out of it), undefined for S3. */
export function fileStoreRoot(storageUrl: string, dataDir: string): string | undefined {
  const location = parseBlobStoreUrl(storageUrl, { dataDir });
  return location.kind === 'file' ? location.root : undefined;
}

async function writeFully(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let offset = 0; offset < bytes.byteLength; ) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.byteLength - offset);
    offset += bytesWritten;
  }
}

/** Writes a stream to a new file (mode 0600) and flushes it to disk; its SHA-256 and length. */
export async function writeStreamToFile(path: string, stream: ReadableStream<Uint8Array>): Promise<{ sha256: string; bytes: number }> {
  const hasher = new Bun.CryptoHasher('sha256');
  let bytes = 0;
  const handle = await open(path, 'wx', 0o600);
  try {
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
      hasher.update(chunk);
      await writeFully(handle, chunk);
      bytes += chunk.byteLength;
    }
    await handle.datasync();
  } finally {
    await handle.close();
  }
  return { sha256: hasher.digest('hex'), bytes };
}

/** skipped: how many keys were not blob keys; skippedKeys: the first 20 of them. */
export type CopiedBlobs = { count: number; bytes: number; listSha256: string; vanished: number; skipped: number; skippedKeys: string[] };

/**
 * Every key the store lists, copied to DIR/blobs/<key> as it is read (one chunk in memory per blob
 * being copied, whatever the blob's size), with `<sha256>  <key>` appended to DIR/blobs.sha256.
 * A key listed and then gone before it is read (an upload's part deleted by its finalize) is counted
 * as vanished; a key that is not a blob key Cartridge writes is skipped and named.
 */
export async function copyBlobsOut(store: BlobStore, dir: string, progress: Progress): Promise<CopiedBlobs> {
  const folder = join(dir, blobsFolder);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const list = await open(join(dir, blobListFile), 'wx', 0o600);
  const listHasher = new Bun.CryptoHasher('sha256');
  let listWrites = Promise.resolve();
  const result: CopiedBlobs = { count: 0, bytes: 0, listSha256: '', vanished: 0, skipped: 0, skippedKeys: [] };
  let lastReport = Date.now();
  try {
    await eachLimited(store.list(''), blobsAtOnce, async ({ key }) => {
      try {
        validateBlobKey(key);
      } catch {
        if (result.skipped++ < 20) result.skippedKeys.push(key);
        return;
      }
      const path = join(folder, ...key.split('/'));
      let stream: ReadableStream<Uint8Array>;
      try {
        stream = await store.get(key);
      } catch (error) {
        if (error instanceof AppError && error.code === 'not_found') {
          result.vanished++;
          return;
        }
        throw error;
      }
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      let written: { sha256: string; bytes: number };
      try {
        written = await writeStreamToFile(path, stream);
      } catch (error) {
        await rm(path, { force: true });
        if (error instanceof AppError && error.code === 'not_found') {
          result.vanished++;
          return;
        }
        throw new Error(`copying the blob ${key}: ${error instanceof Error ? error.message : String(error)}`);
      }
      const line = `${written.sha256}  ${key}\n`;
      listHasher.update(line);
      listWrites = listWrites.then(() => writeFully(list, new TextEncoder().encode(line)));
      result.count++;
      result.bytes += written.bytes;
      if (Date.now() - lastReport >= progressEveryMs) {
        lastReport = Date.now();
        progress(`  … ${counted(result.count, 'blob')}, ${formatSize(result.bytes)} so far`);
      }
    });
    await listWrites;
    await list.datasync();
  } finally {
    await list.close();
  }
  result.listSha256 = listHasher.digest('hex');
  return result;
}

export type BlobListEntry = { sha256: string; key: string };

/** The lines of DIR/blobs.sha256, each checked (a key that could leave DIR/blobs is refused). */
export async function* readBlobList(dir: string): AsyncGenerator<BlobListEntry> {
  let rest = '';
  let lineNumber = 0;
  const decoder = new TextDecoder();
  const parse = (line: string): BlobListEntry => {
    lineNumber++;
    const match = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
    let valid = match !== null;
    if (match) {
      try {
        validateBlobKey(match[2]!);
      } catch {
        valid = false;
      }
    }
    if (!valid) throw new BackupRefusal(`${blobListFile} line ${lineNumber} is not "<sha256>  <blob key>": the backup is damaged.`);
    return { sha256: match![1]!, key: match![2]! };
  };
  for await (const chunk of Bun.file(join(dir, blobListFile)).stream() as unknown as AsyncIterable<Uint8Array>) {
    rest += decoder.decode(chunk, { stream: true });
    const lines = rest.split('\n');
    rest = lines.pop()!;
    for (const line of lines) yield parse(line);
  }
  rest += decoder.decode();
  if (rest !== '') yield parse(rest);
}

/**
 * Writes one blob of the backup into the store, hashing it on the way: when the bytes are not the ones
 * the list names, the body stream fails at its end, so the store keeps nothing under the key (a put
 * whose body errors stores nothing), and the blob is named in the refusal.
 */
export async function restoreBlob(store: BlobStore, dir: string, entry: BlobListEntry): Promise<number> {
  const path = join(dir, blobsFolder, ...entry.key.split('/'));
  const file = Bun.file(path);
  if (!(await file.exists())) throw new BackupRefusal(`The blob ${entry.key} is listed in ${blobListFile} but missing from ${blobsFolder}/: the backup is incomplete.`);
  const hasher = new Bun.CryptoHasher('sha256');
  let bytes = 0;
  let altered = false;
  const refusal = () => new BackupRefusal(`The blob ${entry.key} in the backup is damaged or altered: its SHA-256 is not the one ${blobListFile} lists.`);
  const verified = file.stream().pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        hasher.update(chunk);
        bytes += chunk.byteLength;
        controller.enqueue(chunk);
      },
      flush(controller) {
        if (hasher.digest('hex') !== entry.sha256) {
          altered = true;
          controller.error(refusal());
        }
      },
    }),
  );
  try {
    await store.put(entry.key, verified);
  } catch (error) {
    if (altered) throw refusal();
    throw new Error(`writing the blob ${entry.key}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (altered) {
    await store.delete(entry.key);
    throw refusal();
  }
  return bytes;
}

/** Whether the store holds any blob at all. */
export async function storeIsEmpty(store: BlobStore): Promise<boolean> {
  for await (const _ of store.list('')) return false;
  return true;
}

export { blobsAtOnce };
