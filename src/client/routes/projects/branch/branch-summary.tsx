import { Link } from 'wouter';
import { branch_current_version } from '../../../../shared/i18n/paraglide/messages/branch_current_version.js';
import { branch_no_version } from '../../../../shared/i18n/paraglide/messages/branch_no_version.js';
import { branch_private } from '../../../../shared/i18n/paraglide/messages/branch_private.js';
import { branch_public } from '../../../../shared/i18n/paraglide/messages/branch_public.js';
import { branch_published } from '../../../../shared/i18n/paraglide/messages/branch_published.js';
import { useLanguage } from '../../../lib/i18n/index.ts';
import type { Branch } from '../../../../shared/schemas/branches.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import { formatDateTime } from '../../../../shared/format/date.ts';
import { versionHref } from '../links.ts';
import { BranchActions } from './branch-actions.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { branch_current_version, branch_no_version, branch_private, branch_public, branch_published };

/** The branch's title, visibility, current version and the actions the caller may take. */
export function BranchSummary({ project, branch }: { project: Project; branch: Branch }) {
  const { language } = useLanguage();
  const current = branch.currentVersion;
  return (
    <>
      <h1 className="branch_title">
        {branch.title}
        <span className="badge">{branch.isPublic ? m.branch_public() : m.branch_private()}</span>
      </h1>
      {current ? (
        <dl className="facts" data-testid="branch-current">
          <div>
            <dt>{m.branch_current_version()}</dt>
            <dd>
              <Link href={versionHref(project.id, current.version, branch.id)}>{current.title}</Link>
            </dd>
          </div>
          <div>
            <dt>{m.branch_published()}</dt>
            <dd>
              <time dateTime={current.published}>{formatDateTime(current.published, language)}</time>
            </dd>
          </div>
        </dl>
      ) : (
        <p className="section_intro" data-testid="branch-current">
          {m.branch_no_version()}
        </p>
      )}
      <BranchActions project={project} branch={branch} />
    </>
  );
}
