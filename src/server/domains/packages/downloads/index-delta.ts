import { and, eq } from 'drizzle-orm';
import { acceptsDcz, canDeltaIndex, encodeIndexDelta, parseAvailableDictionary } from '../../../../shared/archive/dictionary-index.ts';
import { equalBytes, toHex } from '../../../../shared/archive/index.ts';
import { packages } from '../../../db/schema/index.ts';
import type { Deps } from '../../../deps.ts';
import type { RangedBody } from '../../../http/range.ts';
import { indexKey } from '../blob-keys.ts';
import type { PackageRow } from '../records/package-rows.ts';

/**
 * Index deltas (RFC 9842 Compression Dictionary Transport, `dcz`; the format and the encoder's settings
 * are in shared/archive/dictionary-index.ts). A GET of an index URL that offers `dcz` in
 * Accept-Encoding and names, in Available-Dictionary, the SHA-256 of the index of a ready package of the
 * SAME project (the companion app's installed version) is answered with the new index compressed
 * against that one: a few hundred bytes instead of the whole index. Any other request, a hash of
 * another project's package, a malformed header, a base or target too large, a delta no smaller than
 * the index, a storage failure: the plain index, never an error.
 *
 * Deltas of new indexes under indexDeltaTuning.cacheFromBytes (4 MiB; milliseconds to make) are made
 * per request; larger ones are kept in the download cache (file-cache.ts, named after the target
 * package so its deletion forgets them), and deltas against bases above 16 MiB (greedy tables: a 50 MiB
 * base takes ≈ 1.3 s and up to a few hundred MB) are made one at a time per process.
 */
export type DeltaOffer = { acceptEncoding: string | null; availableDictionary: string | null };

/** New indexes from this size on have their deltas cached (tests lower it to exercise the cache). */
export const indexDeltaTuning = { cacheFromBytes: 4 * 1024 * 1024 };
/** Bases above this use the greedy strategy's large tables (dictionary-index.ts): one at a time. */
const HEAVY_BASE_BYTES = 16 * 1024 * 1024;
/** Pairs whose delta was no smaller than the index, so large ones are not recompressed on every request. */
const noGain = new Set<string>();
const NO_GAIN_ENTRIES = 1024;
const making = new Map<string, Promise<Uint8Array | undefined>>();
let heavyQueue: Promise<unknown> = Promise.resolve();

export const deltaVary = 'Accept-Encoding, Available-Dictionary';

/** The base package: a ready package of `projectId` whose index hash is `hex`. */
async function findBase(deps: Pick<Deps, 'db'>, projectId: string, hex: string): Promise<string | undefined> {
  const [row] = await deps.db
    .select({ id: packages.id })
    .from(packages)
    .where(and(eq(packages.projectId, projectId), eq(packages.indexHash, hex), eq(packages.status, 'ready')))
    .limit(1);
  return row?.id;
}

function serialiseHeavy<T>(work: () => Promise<T>): Promise<T> {
  const run = heavyQueue.then(work, work);
  heavyQueue = run.catch(() => undefined);
  return run;
}

async function makeDelta(deps: Pick<Deps, 'storage'>, row: PackageRow, baseId: string, baseHash: Uint8Array): Promise<Uint8Array | undefined> {
  const base = await deps.storage.read(indexKey(baseId));
  // The dictionary the client holds is the one whose hash it sent: a stored index that differs is not used.
  if (!equalBytes(new Uint8Array(new Bun.CryptoHasher('sha256').update(base).digest()), baseHash)) return undefined;
  const target = await deps.storage.read(indexKey(row.id));
  return encodeIndexDelta(target, base, baseHash);
}

/**
 * The dcz reply to an index request that offers a usable base, as a RangedBody (Range, If-None-Match
 * and HEAD work on the encoded bytes like on any download); undefined: answer the plain index.
 */
export async function openIndexDelta(deps: Pick<Deps, 'db' | 'storage' | 'fileCache' | 'log'>, row: PackageRow, offer: DeltaOffer, headers: Record<string, string>): Promise<RangedBody | undefined> {
  if (!acceptsDcz(offer.acceptEncoding)) return undefined;
  const baseHash = parseAvailableDictionary(offer.availableDictionary);
  if (!baseHash || !row.indexHash) return undefined;
  const baseHex = toHex(baseHash);
  const key = `${row.id}-${row.indexHash.slice(0, 16)}-dcz-${baseHex.slice(0, 32)}.crt-index`;
  if (noGain.has(key)) return undefined;
  try {
    const baseId = await findBase(deps, row.projectId, baseHex);
    if (!baseId) return undefined;
    const [baseStat, targetStat] = await Promise.all([deps.storage.stat(indexKey(baseId)), deps.storage.stat(indexKey(row.id))]);
    if (!baseStat || !targetStat || !canDeltaIndex(baseStat.size, targetStat.size)) return undefined;
    const reply = (size: number, open: RangedBody['open'], file?: string): RangedBody => ({
      size,
      etag: `"${row.indexHash}-index-dcz-${baseHex}"`,
      headers: { ...headers, 'content-encoding': 'dcz', vary: deltaVary },
      open,
      ...(file ? { file: async () => file } : {}),
    });
    const cacheable = targetStat.size >= indexDeltaTuning.cacheFromBytes;
    if (cacheable) {
      const found = await deps.fileCache.find(key);
      if (found) {
        const file = Bun.file(found);
        return reply(file.size, (start, end) => file.slice(start, end).stream(), found);
      }
    }
    let pending = making.get(key);
    if (!pending) {
      const work = () => makeDelta(deps, row, baseId, baseHash);
      pending = (baseStat.size > HEAVY_BASE_BYTES ? serialiseHeavy(work) : work()).finally(() => making.delete(key));
      making.set(key, pending);
    }
    const bytes = await pending;
    if (!bytes) {
      if (cacheable) {
        if (noGain.size >= NO_GAIN_ENTRIES) noGain.clear();
        noGain.add(key);
      }
      return undefined;
    }
    let file: string | undefined;
    if (cacheable) file = await deps.fileCache.ensure(key, bytes.length, () => new Blob([bytes as Uint8Array<ArrayBuffer>]).stream()).catch(() => undefined);
    return reply(bytes.length, (start, end) => new Blob([bytes.subarray(start, end) as Uint8Array<ArrayBuffer>]).stream(), file);
  } catch (error) {
    deps.log.error('index delta failed; the plain index is sent', { packageId: row.id, error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}
