import { version_branches_empty } from '../../../../shared/i18n/paraglide/messages/version_branches_empty.js';
import { version_branches_heading } from '../../../../shared/i18n/paraglide/messages/version_branches_heading.js';
import { trpc } from '../../../lib/trpc.ts';
import { branchHref } from '../links.ts';
import { publishPageSize, usePublishCursors } from '../branch/paging.ts';
import { PublishList } from '../branch/publish-list.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { version_branches_empty, version_branches_heading };

/** 'Branches it is in': every publish of the version, newest first, with 'Load more'. */
export function VersionBranches({ projectId, versionId }: { projectId: string; versionId: string }) {
  const cursors = usePublishCursors();
  const pages = trpc.useQueries((t) => cursors.befores.map((before) => t.projects.versions.branches({ project: projectId, version: versionId, before, count: publishPageSize })));
  return (
    <PublishList
      heading={m.version_branches_heading()}
      empty={m.version_branches_empty()}
      emptyIcon="branches"
      testId="version-branches"
      pages={pages}
      onLoadMore={cursors.loadMore}
      linkOf={(item) => ({ key: `${item.branchId}-${item.published}`, href: branchHref(projectId, item.branchId), title: item.branchTitle })}
    />
  );
}
