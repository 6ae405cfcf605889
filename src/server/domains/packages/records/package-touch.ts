import { inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { packages, versionPackages } from '../../../db/schema/index.ts';

/**
 * Marks the packages of versions about to be deleted as touched now: a package that leaves its last
 * version starts its ORPHAN_PACKAGE_DAYS from that moment, not from its upload (call it in the
 * transaction that deletes the versions, before the delete).
 */
export async function touchPackagesOfVersions(db: Executor, versionIds: readonly string[]): Promise<void> {
  if (versionIds.length === 0) return;
  const listed = db.select({ id: versionPackages.packageId }).from(versionPackages).where(inArray(versionPackages.versionId, [...versionIds]));
  await db.update(packages).set({ touchedAt: sql`now()` }).where(inArray(packages.id, listed));
}
