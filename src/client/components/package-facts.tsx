import { Fragment } from 'react';
import { package_page_start_file_none } from '../paraglide/messages/package_page_start_file_none.js';
import { packages_status_errored } from '../paraglide/messages/packages_status_errored.js';
import { packages_status_processing } from '../paraglide/messages/packages_status_processing.js';
import { packages_status_uploading } from '../paraglide/messages/packages_status_uploading.js';
import type { Package } from '../../shared/schemas/packages.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { package_page_start_file_none, packages_status_errored, packages_status_processing, packages_status_uploading };

/** A start file as a path ('bin/run.sh'), isolated left-to-right; "None set" without one. */
export function StartFile({ entrypoint, noneText }: { entrypoint: readonly string[] | null; noneText?: string }) {
  if (!entrypoint || entrypoint.length === 0) return <span className="start_file_none">{noneText ?? m.package_page_start_file_none()}</span>;
  return (
    <bdi dir="ltr" className="start_file">
      <code>
        <PathParts parts={entrypoint} />
      </code>
    </bdi>
  );
}

/** 'a/b/c' with a line-break opportunity after each slash, so a long path wraps between its folders. */
export function PathParts({ parts }: { parts: readonly string[] }) {
  return (
    <>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 ? (
            <>
              /<wbr />
            </>
          ) : null}
          {part}
        </Fragment>
      ))}
    </>
  );
}

/** A badge for a package that is not ready (uploading, being processed, failed); nothing when ready. */
export function PackageStatusBadge({ status }: { status: Package['status'] }) {
  if (status === 'ready') return null;
  const text = status === 'uploading' ? m.packages_status_uploading() : status === 'errored' ? m.packages_status_errored() : m.packages_status_processing();
  return (
    <span className={status === 'errored' ? 'badge badge_danger' : 'badge'} data-status={status}>
      {text}
    </span>
  );
}

/**
 * When the orphan collector deletes a package in no version (ORPHAN_PACKAGE_DAYS after its last touch,
 * instance info orphanPackageDays); null when it is in a version, still on its way, or never collected.
 */
export function orphanDeletionDate(pkg: Pick<Package, 'updated' | 'status'> & { versions: readonly unknown[] }, days: number): string | null {
  if (days <= 0 || pkg.versions.length > 0 || !(pkg.status === 'ready' || pkg.status === 'errored')) return null;
  return new Date(Date.parse(pkg.updated) + days * 86_400_000).toISOString();
}
