import { useId } from 'react';
import { edit_tags_label } from '../../../../shared/i18n/paraglide/messages/edit_tags_label.js';
import { package_page_contents } from '../../../../shared/i18n/paraglide/messages/package_page_contents.js';
import { package_page_downloads } from '../../../../shared/i18n/paraglide/messages/package_page_downloads.js';
import { package_page_play_heading } from '../../../../shared/i18n/paraglide/messages/package_page_play_heading.js';
import { package_page_size } from '../../../../shared/i18n/paraglide/messages/package_page_size.js';
import { package_page_size_pending } from '../../../../shared/i18n/paraglide/messages/package_page_size_pending.js';
import { package_page_start_file } from '../../../../shared/i18n/paraglide/messages/package_page_start_file.js';
import { package_page_start_file_none } from '../../../../shared/i18n/paraglide/messages/package_page_start_file_none.js';
import { package_page_start_file_not_executable } from '../../../../shared/i18n/paraglide/messages/package_page_start_file_not_executable.js';
import { package_page_status_errored } from '../../../../shared/i18n/paraglide/messages/package_page_status_errored.js';
import { package_page_status_pending } from '../../../../shared/i18n/paraglide/messages/package_page_status_pending.js';
import { ArchiveBrowser } from '../../../components/archive-browser.tsx';
import { Size } from '../../../components/size.tsx';
import { TagList } from '../../../components/tag-list.tsx';
import { trpc } from '../../../lib/trpc.ts';
import { startFileNeedsExecutable } from '../../../../shared/packages/checks.ts';
import type { Package } from '../../../../shared/schemas/packages.ts';
import { packageCloudPlayHref, packagePlayHref } from '../links.ts';
import type { PackageVia } from './package-actions.tsx';
import { DownloadButtons, type DownloadSource } from './package-downloads.tsx';
import { PackageLaunchers } from './package-launchers.tsx';
import { usePackageLocalTarget } from './use-installable.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  edit_tags_label,
  package_page_contents,
  package_page_downloads,
  package_page_play_heading,
  package_page_size,
  package_page_size_pending,
  package_page_start_file,
  package_page_start_file_none,
  package_page_start_file_not_executable,
  package_page_status_errored,
  package_page_status_pending,
};

/** The start file, flagged when it lacks the executable bit it needs (it would not start). */
function StartFile({ pkg }: { pkg: Package }) {
  if (!pkg.entrypoint) return <>{m.package_page_start_file_none()}</>;
  const name = pkg.entrypoint[pkg.entrypoint.length - 1] ?? '';
  const cannotStart = pkg.entrypointExecutable === false && startFileNeedsExecutable(name, pkg.tags);
  return (
    <>
      <code dir="ltr">{pkg.entrypoint.join('/')}</code>
      {cannotStart ? (
        <span className="badge badge_warning" data-testid="package-start-file-not-executable">
          {m.package_page_start_file_not_executable()}
        </span>
      ) : null}
    </>
  );
}

/** Tags, total size and start file. */
export function PackageFacts({ pkg }: { pkg: Package }) {
  return (
    <dl className="facts package_facts">
      <div>
        <dt>{m.edit_tags_label()}</dt>
        <dd data-testid="package-tags">
          <TagList tags={pkg.tags} />
        </dd>
      </div>
      <div>
        <dt>{m.package_page_size()}</dt>
        <dd data-testid="package-size">{pkg.size === null ? m.package_page_size_pending() : <Size bytes={pkg.size} title={`${pkg.size} B`} />}</dd>
      </div>
      <div>
        <dt>{m.package_page_start_file()}</dt>
        <dd data-testid="package-start-file">
          <StartFile pkg={pkg} />
        </dd>
      </div>
    </dl>
  );
}

/** Downloads, play/install places and the contents browser; only a ready package has any of them. */
export function PackageSections({ project, pkg, via }: { project: { id: string; title: string }; pkg: Package; via: PackageVia }) {
  const projectId = project.id;
  const utils = trpc.useUtils();
  const ids = { downloads: useId(), play: useId(), contents: useId() };
  const local = usePackageLocalTarget(project, pkg, via);
  if (pkg.status !== 'ready') {
    return (
      <p className="notice package_status" role="status" data-status={pkg.status}>
        {pkg.status === 'errored' ? m.package_page_status_errored() : m.package_page_status_pending()}
      </p>
    );
  }
  const input = { project: projectId, package: pkg.id };
  const source: DownloadSource = {
    zipUrl: async () => (await utils.packageDownloads.url.fetch({ ...input, filter: 'zip' }, { staleTime: 0 })).url,
    torrent: () => utils.packageDownloads.torrent.fetch(input, { staleTime: 0 }),
  };
  return (
    <>
      <section className="section package_downloads" aria-labelledby={ids.downloads}>
        <h2 id={ids.downloads}>{m.package_page_downloads()}</h2>
        <DownloadButtons source={source} />
      </section>
      <section className="section package_play" aria-labelledby={ids.play}>
        <h2 id={ids.play}>{m.package_page_play_heading()}</h2>
        <PackageLaunchers tags={pkg.tags} playHref={packagePlayHref(projectId, pkg.id, via)} cloudPlayHref={packageCloudPlayHref(projectId, pkg.id, via)} local={local} />
      </section>
      <section className="section package_contents" aria-labelledby={ids.contents}>
        <h2 id={ids.contents}>{m.package_page_contents()}</h2>
        <ArchiveBrowser
          cacheKey={[pkg.id, pkg.indexHash]}
          loadIndexUrl={async () => (await utils.packageDownloads.url.fetch({ ...input, filter: 'index' }, { staleTime: 0 })).url}
          entrypoint={pkg.entrypoint}
          labelledBy={ids.contents}
        />
      </section>
    </>
  );
}
