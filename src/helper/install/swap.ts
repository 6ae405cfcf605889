import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TransitionPlan } from './plan.ts';
import type { SafeTree } from './safe-tree.ts';

/**
 * Makes dir match the target, from a complete staging folder. Every step is idempotent, so a swap a
 * crash interrupted is finished by running it again with the same plan (recoverWorkdir):
 *   1. files and links that left the package are removed (only paths the target has nothing at: a path
 *      the target reuses is replaced by steps 2-4, so a re-run never deletes a new file);
 *   2. the target's folders are made real folders (a link or file in the way is replaced, never followed);
 *   3. each staged file is renamed into place (atomic per file; a staged file already moved is skipped);
 *   4. links are made (an old link with the same target stays);
 *   5. unchanged files whose executable bit changed get their mode;
 *   6. folders that left the package are removed when empty.
 * Returns the keys of staged files that were neither in staging nor in place (staging damaged by hand:
 * the receipt is written anyway and a repair restores them).
 */
export function applySwap(tree: SafeTree, stagingDir: string, plan: TransitionPlan, afterMove?: (moved: number) => void): string[] {
  let moved = 0;
  const lost: string[] = [];
  for (const parts of plan.removals) tree.removeFileOrLink(parts);
  for (const parts of plan.directories) tree.ensureFolder(parts);
  for (const file of plan.build) {
    const from = join(stagingDir, file.staging);
    if (existsSync(from)) {
      tree.moveInto(from, file.parts);
      afterMove?.(++moved);
      continue;
    }
    // Moved by the run a crash interrupted?
    const stats = tree.parentsReal(file.parts) ? tree.lstat(file.parts) : undefined;
    if (!stats?.isFile() || stats.size !== file.file.size) lost.push(file.key);
  }
  for (const link of plan.links) tree.link(link.parts, link.target);
  for (const file of plan.modeChanges) tree.setMode(file.parts, file.mode);
  for (const parts of plan.oldDirectories) tree.removeEmptyFolder(parts);
  return lost;
}
