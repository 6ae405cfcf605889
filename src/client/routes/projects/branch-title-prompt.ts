import { project_overview_name_taken } from '../../../shared/i18n/paraglide/messages/project_overview_name_taken.js';
import { project_overview_new_branch_label } from '../../../shared/i18n/paraglide/messages/project_overview_new_branch_label.js';
import { project_overview_too_long } from '../../../shared/i18n/paraglide/messages/project_overview_too_long.js';
import type { Dialogs } from '../../dialogs/dialog-api.tsx';
import { toDisplayError } from '../../lib/errors.ts';
import type { Branch } from '../../../shared/schemas/branches.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { project_overview_name_taken, project_overview_new_branch_label, project_overview_too_long };

/** branchTitleSchema's limit. */
const branchTitleMaxLength = 64;

/**
 * The title prompt of New branch and of Rename branch, one behaviour for both: the field "Branch title",
 * a title another branch has (of the list already loaded) refused inline before anything is sent, and
 * a name_conflict from the server (taken meanwhile) shown the same way in the prompt asked again with
 * what was typed. Any other refusal is the error dialog, whose Retry asks again. Resolves with what
 * `save` returned, or null when the user gave up (or, renaming, kept the same title).
 */
export async function promptBranchTitle<T>(
  dialogs: Dialogs,
  options: {
    title: string;
    confirmLabel: string;
    initialValue: string;
    /** The branches known now (asked again after a conflict: the list changed). */
    branches: () => Promise<readonly Pick<Branch, 'id' | 'title'>[]>;
    /** The branch being renamed: its own title is not taken. */
    branchId?: string;
    save: (title: string) => Promise<T>;
  },
): Promise<T | null> {
  let value = options.initialValue;
  let initialProblem: string | undefined;
  for (;;) {
    const taken = new Set((await options.branches().catch(() => [])).filter((branch) => branch.id !== options.branchId).map((branch) => branch.title));
    const entered = await dialogs.prompt({
      title: options.title,
      label: m.project_overview_new_branch_label(),
      initialValue: value,
      initialProblem,
      maxLength: branchTitleMaxLength,
      confirmLabel: options.confirmLabel,
      validate: (typed) => {
        if (typed.trim().length > branchTitleMaxLength) return m.project_overview_too_long({ max: String(branchTitleMaxLength) });
        if (taken.has(typed.trim())) return m.project_overview_name_taken();
        return undefined;
      },
    });
    if (entered === null) return null;
    value = entered.trim();
    if (options.branchId !== undefined && value === options.initialValue.trim()) return null;
    try {
      return await options.save(value);
    } catch (error) {
      if (toDisplayError(error).code === 'name_conflict') {
        initialProblem = m.project_overview_name_taken();
        continue;
      }
      initialProblem = undefined;
      if ((await dialogs.error(error, { retry: true })) === 'ok') return null;
    }
  }
}
