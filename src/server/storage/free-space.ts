import { statfs } from 'node:fs/promises';

/**
 * STORAGE_FREE_FLOOR: free space the download cache leaves on its disk for blobs and the database,
 * in bytes or as a share of the disk ('5%').
 */
export type FreeSpaceFloor = { bytes: number } | { percent: number };

export const defaultFreeSpaceFloor: FreeSpaceFloor = { bytes: 1024 ** 3 };

/** '1073741824' or '5%' (0..100, decimals allowed); undefined when the text is neither. */
export function parseFreeSpaceFloor(text: string): FreeSpaceFloor | undefined {
  const value = text.trim();
  const percent = /^(\d{1,3}(?:\.\d+)?)%$/.exec(value);
  if (percent) {
    const share = Number(percent[1]);
    return share <= 100 ? { percent: share } : undefined;
  }
  if (!/^\d{1,16}$/.test(value)) return undefined;
  const bytes = Number(value);
  return Number.isSafeInteger(bytes) ? { bytes } : undefined;
}

/** Bytes an unprivileged writer may still take on the filesystem of `path`, and the filesystem's size. */
async function diskSpaceOf(path: string): Promise<{ free: number; total: number }> {
  const info = await statfs(path);
  return { free: info.bavail * info.bsize, total: info.blocks * info.bsize };
}

function floorBytes(floor: FreeSpaceFloor, total: number): number {
  return 'bytes' in floor ? floor.bytes : Math.ceil((total * floor.percent) / 100);
}

/** Bytes that may be written on the filesystem of `path` before its free space passes under the floor (negative: under it already). */
export async function roomAboveFloor(path: string, floor: FreeSpaceFloor): Promise<number> {
  const { free, total } = await diskSpaceOf(path);
  return free - floorBytes(floor, total);
}
