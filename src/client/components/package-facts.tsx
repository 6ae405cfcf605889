import { Fragment } from 'react';
import { add_existing_in_versions } from '../../shared/i18n/paraglide/messages/add_existing_in_versions.js';
import { add_existing_no_start_file } from '../../shared/i18n/paraglide/messages/add_existing_no_start_file.js';
import { add_existing_start_file } from '../../shared/i18n/paraglide/messages/add_existing_start_file.js';
import { add_existing_uploaded } from '../../shared/i18n/paraglide/messages/add_existing_uploaded.js';
import { package_page_start_file_none } from '../../shared/i18n/paraglide/messages/package_page_start_file_none.js';
import { packages_in_no_version } from '../../shared/i18n/paraglide/messages/packages_in_no_version.js';
import { packages_status_errored } from '../../shared/i18n/paraglide/messages/packages_status_errored.js';
import { packages_status_processing } from '../../shared/i18n/paraglide/messages/packages_status_processing.js';
import { packages_status_uploading } from '../../shared/i18n/paraglide/messages/packages_status_uploading.js';
import { formatDate } from '../../shared/format/date.ts';
import type { Package, PackageVersionRef } from '../../shared/schemas/packages.ts';
import { useLanguage } from '../lib/i18n/index.ts';
import { rich, slot } from '../lib/i18n/rich.tsx';
import { Size } from './size.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  add_existing_in_versions,
  add_existing_no_start_file,
  add_existing_start_file,
  add_existing_uploaded,
  package_page_start_file_none,
  packages_in_no_version,
  packages_status_errored,
  packages_status_processing,
  packages_status_uploading,
};

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
function PathParts({ parts }: { parts: readonly string[] }) {
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

/** How many version names a details line shows before an ellipsis (a package pushed every day is in many). */
const shownVersions = 3;

function versionNames(versions: readonly PackageVersionRef[], language: string): string {
  const names = versions.slice(0, shownVersions).map((version) => version.title);
  let list: string;
  try {
    list = new Intl.ListFormat(language, { type: 'unit', style: 'short' }).format(names);
  } catch {
    list = names.join(', ');
  }
  return versions.length > shownVersions ? `${list}…` : list;
}

export type PackageFact = 'versions' | 'uploaded' | 'size' | 'start-file';

/**
 * What tells packages with the same name apart, as a secondary line: the versions it is in (when the
 * reply lists them), when it was uploaded, its size (once known), its start file.
 */
export function PackageDetails({
  pkg,
  facts = ['versions', 'uploaded', 'start-file'],
  className,
}: {
  pkg: Pick<Package, 'created' | 'entrypoint' | 'size'> & { versions?: readonly PackageVersionRef[] };
  facts?: readonly PackageFact[];
  className?: string;
}) {
  const { language } = useLanguage();
  const { versions, entrypoint } = pkg;
  return (
    <span className={className ? `package_details ${className}` : 'package_details'}>
      {facts.includes('versions') && versions ? (
        <span data-fact="versions">
          {versions.length === 0 ? m.packages_in_no_version() : rich(m.add_existing_in_versions({ versions: slot('versions') }), { versions: <bdi>{versionNames(versions, language)}</bdi> })}
        </span>
      ) : null}
      {facts.includes('uploaded') ? (
        <span data-fact="uploaded">
          {rich(m.add_existing_uploaded({ date: slot('date') }), { date: <time dateTime={pkg.created}>{formatDate(pkg.created, language)}</time> })}
        </span>
      ) : null}
      {facts.includes('size') && pkg.size !== null ? (
        <span data-fact="size">
          <Size bytes={pkg.size} />
        </span>
      ) : null}
      {facts.includes('start-file') ? <StartFileFact entrypoint={entrypoint} /> : null}
    </span>
  );
}

/** "Start file bin/run.sh" (the path isolated left-to-right) or "No start file": one fact of a details line. */
export function StartFileFact({ entrypoint }: { entrypoint: readonly string[] | null }) {
  return (
    <span data-fact="start-file">
      {entrypoint && entrypoint.length > 0
        ? rich(m.add_existing_start_file({ path: slot('path') }), {
            path: (
              <bdi dir="ltr" className="start_file">
                <code>
                  <PathParts parts={entrypoint} />
                </code>
              </bdi>
            ),
          })
        : m.add_existing_no_start_file()}
    </span>
  );
}
