import { useId, useState, type FormEvent } from 'react';
import { branch_retention_count } from '../../../../shared/i18n/paraglide/messages/branch_retention_count.js';
import { branch_retention_default_count_one } from '../../../../shared/i18n/paraglide/messages/branch_retention_default_count_one.js';
import { branch_retention_default_count_other } from '../../../../shared/i18n/paraglide/messages/branch_retention_default_count_other.js';
import { branch_retention_default_days_one } from '../../../../shared/i18n/paraglide/messages/branch_retention_default_days_one.js';
import { branch_retention_default_days_other } from '../../../../shared/i18n/paraglide/messages/branch_retention_default_days_other.js';
import { branch_retention_default_indefinitely } from '../../../../shared/i18n/paraglide/messages/branch_retention_default_indefinitely.js';
import { branch_retention_default_unlimited } from '../../../../shared/i18n/paraglide/messages/branch_retention_default_unlimited.js';
import { branch_retention_heading } from '../../../../shared/i18n/paraglide/messages/branch_retention_heading.js';
import { branch_retention_intro } from '../../../../shared/i18n/paraglide/messages/branch_retention_intro.js';
import { branch_retention_invalid } from '../../../../shared/i18n/paraglide/messages/branch_retention_invalid.js';
import { branch_retention_noncurrent } from '../../../../shared/i18n/paraglide/messages/branch_retention_noncurrent.js';
import { branch_retention_save } from '../../../../shared/i18n/paraglide/messages/branch_retention_save.js';
import { branch_retention_saved } from '../../../../shared/i18n/paraglide/messages/branch_retention_saved.js';
import { branch_retention_time } from '../../../../shared/i18n/paraglide/messages/branch_retention_time.js';
import { FormField } from '../../../components/form-field.tsx';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { fieldValue } from '../../../lib/form.ts';
import { trpc } from '../../../lib/trpc.ts';
import type { Branch, BranchRetention } from '../../../../shared/schemas/branches.ts';
import type { Quotas } from '../../../../shared/schemas/projects.ts';
import { plural } from '../../../../shared/format/plural.ts';
import { isTimeField, maxRetentionCount, maxRetentionDays, parseRetentionInput, retentionFields, retentionInputValue, secondsToDays, type RetentionField } from './retention.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { branch_retention_count, branch_retention_default_count_one, branch_retention_default_count_other, branch_retention_default_days_one, branch_retention_default_days_other, branch_retention_default_indefinitely, branch_retention_default_unlimited, branch_retention_heading, branch_retention_intro, branch_retention_invalid, branch_retention_noncurrent, branch_retention_save, branch_retention_saved, branch_retention_time };

const labels: Record<RetentionField, () => string> = {
  quotaCount: m.branch_retention_count,
  quotaTime: m.branch_retention_time,
  quotaNonCurrentTime: m.branch_retention_noncurrent,
};

const quotaOf: Record<RetentionField, keyof Quotas> = {
  quotaCount: 'branchVersionsCount',
  quotaTime: 'branchVersionsTime',
  quotaNonCurrentTime: 'branchVersionsNonCurrentTime',
};

/** 'Default: 20 versions' / 'Default: indefinitely': what an empty field means (null or 0 = no limit). */
function defaultHint(field: RetentionField, value: number | null | undefined): string {
  if (!value) return isTimeField(field) ? m.branch_retention_default_indefinitely() : m.branch_retention_default_unlimited();
  if (isTimeField(field)) return plural(secondsToDays(value), m.branch_retention_default_days_one, m.branch_retention_default_days_other);
  return plural(value, m.branch_retention_default_count_one, m.branch_retention_default_count_other);
}

/** 'Keep versions': the branch's retention overrides, in days and a count; empty inherits the project's. */
export function RetentionSection({ projectId, branch }: { projectId: string; branch: Branch }) {
  const headingId = useId();
  const quotas = trpc.projects.quotas.useQuery({ project: projectId });
  // Here, not in the form: a save changes the stored values, which remounts the form.
  const [saved, setSaved] = useState(false);
  // The project's default: its quotas; before they load, an inherited field's effective value is the same.
  const defaults = (field: RetentionField) => (quotas.data ? quotas.data[quotaOf[field]] : branch.retention[field] === null ? branch.retentionEffective[field] : undefined);
  return (
    <section className="section" aria-labelledby={headingId}>
      <h2 id={headingId}>{m.branch_retention_heading()}</h2>
      <p className="section_intro">{m.branch_retention_intro()}</p>
      {/* Keyed by the stored values: after a save (or someone else's) the fields show what is stored. */}
      <RetentionForm
        key={JSON.stringify(branch.retention)}
        projectId={projectId}
        branch={branch}
        hint={(field) => (defaults(field) === undefined ? undefined : defaultHint(field, defaults(field)))}
        saved={saved}
        onSaved={setSaved}
      />
    </section>
  );
}

type RetentionFormProps = { projectId: string; branch: Branch; hint: (field: RetentionField) => string | undefined; saved: boolean; onSaved: (saved: boolean) => void };

function RetentionForm({ projectId, branch, hint, saved, onSaved: setSaved }: RetentionFormProps) {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const patch = trpc.projects.branches.patch.useMutation();
  const [problems, setProblems] = useState<Partial<Record<RetentionField, string>>>({});

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const retention: Partial<BranchRetention> = {};
    const found: Partial<Record<RetentionField, string>> = {};
    for (const field of retentionFields) {
      const value = parseRetentionInput(fieldValue(form, field), field);
      if (value === 'invalid') found[field] = m.branch_retention_invalid({ max: String(isTimeField(field) ? maxRetentionDays : maxRetentionCount) });
      else retention[field] = value;
    }
    setProblems(found);
    setSaved(false);
    if (Object.keys(found).length > 0) return;
    const updated = await dialogs.attempt(() => patch.mutateAsync({ project: projectId, branch: branch.id, retention }));
    if (!updated) return;
    await utils.projects.branches.list.invalidate({ project: projectId });
    setSaved(true);
  };

  return (
    <form className="form" onSubmit={submit} noValidate data-testid="retention-form">
      {retentionFields.map((field) => (
        <FormField key={field} label={labels[field]()} hint={hint(field) || undefined} error={problems[field]}>
          {(control) => (
            <input
              {...control}
              name={field}
              className="input retention_input"
              inputMode="numeric"
              defaultValue={retentionInputValue(branch.retention, field)}
              onChange={() => setSaved(false)}
            />
          )}
        </FormField>
      ))}
      <div className="actions">
        <button type="submit" className="button button_primary" aria-disabled={patch.isPending ? true : undefined}>
          {m.branch_retention_save()}
        </button>
        <span role="status" className="retention_status">
          {saved ? m.branch_retention_saved() : ''}
        </span>
      </div>
    </form>
  );
}
