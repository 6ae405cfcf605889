import { packageTitle } from '../../../../shared/packages/package-name.ts';
import type { Package } from '../../../../shared/schemas/packages.ts';
import type { StorePackage } from '../../../../shared/schemas/store.ts';
import type { PackageRow } from './package-rows.ts';

/**
 * `title` is the package's name by the one rule of src/shared/packages/package-name.ts: its own title,
 * else the one its tags give ('Linux x86 64-bit', or 'Package'); the same in every list, version and
 * store, and in its download file names.
 */
export function describePackage(row: PackageRow): Package {
  return {
    id: row.id,
    title: packageTitle(row),
    tags: row.tags,
    entrypoint: row.entrypoint,
    size: row.totalSize,
    created: row.createdAt.toISOString(),
    updated: row.touchedAt.toISOString(),
    status: row.status,
    basePackage: row.basePackageId,
    storedSize: row.storedSize,
    indexHash: row.indexHash,
  };
}

/** The store page's summary of a package (the store project carries one per listed package). */
export function summarizePackage(row: Pick<PackageRow, 'id' | 'title' | 'tags' | 'totalSize'>): StorePackage {
  return { id: row.id, title: packageTitle(row), tags: row.tags, size: row.totalSize };
}
