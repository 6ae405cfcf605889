import { useState } from 'react';
import { manage_branches_empty } from '../../../../shared/i18n/paraglide/messages/manage_branches_empty.js';
import { manage_branches_heading } from '../../../../shared/i18n/paraglide/messages/manage_branches_heading.js';
import { manage_branches_intro } from '../../../../shared/i18n/paraglide/messages/manage_branches_intro.js';
import { manage_branches_private_note } from '../../../../shared/i18n/paraglide/messages/manage_branches_private_note.js';
import { EmptyState, ErrorState, LoadingState } from '../../../components/states.tsx';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { trpc } from '../../../lib/trpc.ts';
import type { Branch } from '../../../../shared/schemas/branches.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import { useProjectRefresh } from './use-project-refresh.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { manage_branches_empty, manage_branches_heading, manage_branches_intro, manage_branches_private_note };

/** One checkbox per branch (the public toggle of a branch needs patchProject, spec §4). */
export function PublicBranchesSection({ project }: { project: Project }) {
  const branches = trpc.projects.branches.list.useQuery({ project: project.id });
  return (
    <section className="section" aria-labelledby="manage-branches">
      <h2 id="manage-branches">{m.manage_branches_heading()}</h2>
      <p className="section_intro">{m.manage_branches_intro()}</p>
      {project.isPublic ? null : <p className="notice">{m.manage_branches_private_note()}</p>}
      {branches.isPending ? <LoadingState /> : null}
      {branches.error ? <ErrorState error={branches.error} onRetry={() => void branches.refetch()} /> : null}
      {branches.data && branches.data.length === 0 ? <EmptyState icon="branches">{m.manage_branches_empty()}</EmptyState> : null}
      {branches.data && branches.data.length > 0 ? (
        <ul className="manage_checklist" aria-labelledby="manage-branches">
          {branches.data.map((branch) => (
            <BranchToggle key={branch.id} projectId={project.id} branch={branch} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function BranchToggle({ projectId, branch }: { projectId: string; branch: Branch }) {
  const dialogs = useDialogs();
  const refresh = useProjectRefresh(projectId);
  const patch = trpc.projects.branches.patch.useMutation();
  // Shown at once while saving; the list's refetch then confirms it (or a failure puts it back).
  const [pending, setPending] = useState<boolean | undefined>();
  const toggle = async (isPublic: boolean) => {
    setPending(isPublic);
    await dialogs.attempt(() => patch.mutateAsync({ project: projectId, branch: branch.id, isPublic }));
    await refresh.branches();
    setPending(undefined);
  };
  return (
    <li>
      <label className="choice">
        <input
          type="checkbox"
          checked={pending ?? branch.isPublic}
          aria-busy={pending !== undefined ? true : undefined}
          onChange={(event) => {
            if (pending === undefined) void toggle(event.currentTarget.checked);
          }}
        />{' '}
        {branch.title}
      </label>
    </li>
  );
}
