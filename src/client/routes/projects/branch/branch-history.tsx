import { branch_history_empty } from '../../../../shared/i18n/paraglide/messages/branch_history_empty.js';
import { branch_history_heading } from '../../../../shared/i18n/paraglide/messages/branch_history_heading.js';
import { trpc } from '../../../lib/trpc.ts';
import { versionHref } from '../links.ts';
import { publishPageSize, usePublishCursors } from './paging.ts';
import { PublishList } from './publish-list.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { branch_history_empty, branch_history_heading };

/** The branch's publishes, newest first, 'Load more' by publish time. */
export function BranchHistory({ projectId, branchId }: { projectId: string; branchId: string }) {
  const cursors = usePublishCursors();
  const pages = trpc.useQueries((t) => cursors.befores.map((before) => t.projects.versions.history({ project: projectId, branch: branchId, before, count: publishPageSize })));
  return (
    <PublishList
      heading={m.branch_history_heading()}
      empty={m.branch_history_empty()}
      emptyIcon="history"
      testId="branch-history"
      pages={pages}
      onLoadMore={cursors.loadMore}
      linkOf={(item) => ({ key: `${item.id}-${item.published}`, href: versionHref(projectId, item.id, branchId), title: item.title })}
    />
  );
}
