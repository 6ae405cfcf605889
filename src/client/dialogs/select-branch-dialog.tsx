import { select_branch_current } from '../../shared/i18n/paraglide/messages/select_branch_current.js';
import { select_branch_empty } from '../../shared/i18n/paraglide/messages/select_branch_empty.js';
import { select_branch_hint } from '../../shared/i18n/paraglide/messages/select_branch_hint.js';
import { select_branch_label } from '../../shared/i18n/paraglide/messages/select_branch_label.js';
import { select_branch_publish } from '../../shared/i18n/paraglide/messages/select_branch_publish.js';
import { version_repost } from '../../shared/i18n/paraglide/messages/version_repost.js';
import { trpc } from '../lib/trpc.ts';
import { PickOneDialog } from './select-version-dialog.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { select_branch_current, select_branch_empty, select_branch_hint, select_branch_label, select_branch_publish, version_repost };

/**
 * Repost a version in a branch: the project's branches; those where the version already is current are
 * disabled (the server refuses such a publish with bad_param).
 */
export function SelectBranchDialog({ projectId, versionId, onSubmit, onClose }: { projectId: string; versionId: string; onSubmit: (branchId: string) => Promise<void>; onClose: (done: boolean) => void }) {
  const branches = trpc.projects.branches.list.useQuery({ project: projectId });
  const options = branches.data?.map((branch) => ({
    id: branch.id,
    label: branch.title,
    disabled: branch.currentVersion?.version === versionId,
    disabledReason: m.select_branch_current(),
  }));
  return (
    <PickOneDialog
      title={m.version_repost()}
      legend={m.select_branch_label()}
      hint={options?.some((option) => option.disabled) ? m.select_branch_hint() : undefined}
      emptyText={m.select_branch_empty()}
      emptyIcon="branches"
      confirmLabel={m.select_branch_publish()}
      options={options}
      loadError={branches.error}
      onRetryLoad={() => void branches.refetch()}
      onSubmit={onSubmit}
      onClose={onClose}
    />
  );
}
