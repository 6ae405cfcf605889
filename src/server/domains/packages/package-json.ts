import { defaultPackageTitle } from '../../../shared/packages/default-title.ts';
import type { Package } from '../../../shared/schemas/packages.ts';
import type { PackageRow } from './package-rows.ts';

/**
 * A package without its own title (title null) shows the spec's default "derived from version and
 * tags" (src/shared/packages/default-title.ts): the tags alone ('Linux x86 64-bit', or 'Package') in
 * project lists, prefixed by the version's title ('1.2.0 Linux x86 64-bit') when listed in a version.
 */
export function describePackage(row: PackageRow, versionTitle?: string): Package {
  return {
    id: row.id,
    title: row.title ?? defaultPackageTitle(row.tags, versionTitle),
    tags: row.tags,
    entrypoint: row.entrypoint,
    size: row.totalSize,
    created: row.createdAt.toISOString(),
    status: row.status,
    basePackage: row.basePackageId,
    storedSize: row.storedSize,
    indexHash: row.indexHash,
  };
}
