import { useId, type ReactNode } from 'react';
import { version_created } from '../../../../shared/i18n/paraglide/messages/version_created.js';
import { version_description_empty } from '../../../../shared/i18n/paraglide/messages/version_description_empty.js';
import { version_description_label } from '../../../../shared/i18n/paraglide/messages/version_description_label.js';
import { version_packages_label } from '../../../../shared/i18n/paraglide/messages/version_packages_label.js';
import { MarkdownView } from '../../../components/markdown-view.tsx';
import { VersionPackages } from '../package/version-packages.tsx';
import { useLanguage } from '../../../lib/i18n/index.ts';
import type { Version } from '../../../../shared/schemas/versions.ts';
import { formatDateTime } from '../../../../shared/format/date.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { version_created, version_description_empty, version_description_label, version_packages_label };

/**
 * Title, creation date, description and packages (the version's list, reached through the branch when
 * the page was; `packages` replaces it where a page shows something else there).
 */
export function VersionDetails({ version, projectId, branchId, packages }: { version: Version; projectId: string; branchId?: string; packages?: ReactNode }) {
  const { language } = useLanguage();
  const ids = { description: useId(), packages: useId() };
  return (
    <>
      <h1>
        <bdi>{version.title}</bdi>
      </h1>
      <dl className="facts">
        <div>
          <dt>{m.version_created()}</dt>
          <dd>
            <time dateTime={version.created}>{formatDateTime(version.created, language)}</time>
          </dd>
        </div>
      </dl>
      <section className="section" aria-labelledby={ids.description}>
        <h2 id={ids.description}>{m.version_description_label()}</h2>
        {version.description.trim() ? (
          // Sanitised markdown; its headings sit below the section's h2.
          <div data-testid="version-description">
            <MarkdownView markdown={version.description} headingOffset={2} />
          </div>
        ) : (
          <p className="section_intro">{m.version_description_empty()}</p>
        )}
      </section>
      <section className="section" aria-labelledby={ids.packages}>
        <h2 id={ids.packages}>{m.version_packages_label()}</h2>
        {packages ?? <VersionPackages projectId={projectId} versionId={version.id} branchId={branchId} />}
      </section>
    </>
  );
}
