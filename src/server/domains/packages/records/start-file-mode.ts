import { findEntry, MODE_EXECUTABLE } from '../../../../shared/archive/index.ts';
import type { Deps } from '../../../deps.ts';
import { readPackageIndex } from './package-content.ts';
import type { PackageRow } from './package-rows.ts';

/** Answers by package and index hash: a ready package's index never changes, so any process may keep its own. */
const known = new Map<string, boolean | null>();
const KNOWN_MAX = 1024;

/**
 * Whether the package's start file carries the executable bit (the package page shows it when it does
 * not); null without a start file, when it is no file of the package, while the package is not ready
 * or when its index cannot be read (the page then says nothing rather than fail).
 */
export async function startFileExecutable(deps: Pick<Deps, 'storage' | 'log'>, row: PackageRow): Promise<boolean | null> {
  if (row.status !== 'ready' || !row.indexHash || !row.entrypoint || row.entrypoint.length === 0) return null;
  const key = `${row.id}:${row.indexHash}`;
  const cached = known.get(key);
  if (cached !== undefined) return cached;
  let answer: boolean | null;
  try {
    const index = await readPackageIndex(deps, row.id);
    const entry = findEntry({ root: index.root }, row.entrypoint);
    answer = entry?.kind === 'file' ? (entry.mode & MODE_EXECUTABLE) !== 0 : null;
  } catch (error) {
    deps.log.error('the start file mode could not be read', { packageId: row.id, error: error instanceof Error ? error.message : String(error) });
    return null;
  }
  known.set(key, answer);
  if (known.size > KNOWN_MAX) known.delete(known.keys().next().value!);
  return answer;
}
