import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { S3Client } from 'bun';

/**
 * The blob store's keys as the store itself holds them, whatever the layout (per-chunk blobs
 * `chunks/…`, pack files `packs/…`, indexes, parts): the file store's files under its root (names
 * starting with '.' are its temporary files and bookkeeping, never keys), or an S3 bucket's objects
 * through ListObjectsV2. `byPrefix` counts them by their first path segment, for the report.
 */
export type BlobCount = { total: number; byPrefix: Map<string, number>; keys: string[] };

function tally(keys: string[]): BlobCount {
  const byPrefix = new Map<string, number>();
  for (const key of keys) {
    const prefix = key.includes('/') ? key.slice(0, key.indexOf('/')) : key;
    byPrefix.set(prefix, (byPrefix.get(prefix) ?? 0) + 1);
  }
  return { total: keys.length, byPrefix, keys };
}

export function countFileBlobs(root: string): BlobCount {
  const keys: string[] = [];
  const walk = (dir: string, prefix: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // not created yet: no blob stored
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      if (entry.isDirectory()) walk(join(dir, entry.name), `${prefix}${entry.name}/`);
      else keys.push(`${prefix}${entry.name}`);
    }
  };
  walk(root, '');
  return tally(keys);
}

export type S3Location = { endpoint: string; bucket: string; accessKeyId: string; secretAccessKey: string };

export async function countS3Blobs(location: S3Location): Promise<BlobCount> {
  const client = new S3Client({ ...location, region: 'us-east-1' });
  const keys: string[] = [];
  let continuationToken: string | undefined;
  for (;;) {
    const page = await client.list({ maxKeys: 1000, continuationToken });
    for (const item of page.contents ?? []) keys.push(item.key);
    if (!page.isTruncated) break;
    continuationToken = page.nextContinuationToken;
    if (!continuationToken) throw new Error('S3 listing is truncated but has no continuation token');
  }
  return tally(keys);
}

export function describeCount(count: BlobCount): string {
  return [...count.byPrefix].sort((a, b) => b[1] - a[1]).map(([prefix, n]) => `${prefix}/ ${n}`).join(', ') || 'none';
}

/** Waits until no key names `id` (a deleted package's parts, collected by a job); the keys left when it gives up. */
export async function waitForKeysGone(count: () => Promise<BlobCount> | BlobCount, id: string, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = (await count()).keys.filter((key) => key.includes(id)).length;
    if (left === 0 || Date.now() > deadline) return left;
    await Bun.sleep(250);
  }
}
