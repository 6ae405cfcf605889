import { useId, useState, type FormEvent } from 'react';
import { dialog_error_message } from '../../shared/i18n/paraglide/messages/dialog_error_message.js';
import { dialog_required } from '../../shared/i18n/paraglide/messages/dialog_required.js';
import { branch_publish_existing } from '../../shared/i18n/paraglide/messages/branch_publish_existing.js';
import { select_version_current } from '../../shared/i18n/paraglide/messages/select_version_current.js';
import { select_version_empty } from '../../shared/i18n/paraglide/messages/select_version_empty.js';
import { select_version_hint } from '../../shared/i18n/paraglide/messages/select_version_hint.js';
import { select_version_label } from '../../shared/i18n/paraglide/messages/select_version_label.js';
import { select_version_publish } from '../../shared/i18n/paraglide/messages/select_version_publish.js';
import { EmptyState, ErrorState, LoadingState, type EmptyIcon } from '../components/states.tsx';
import { errorText, toDisplayError } from '../lib/errors.ts';
import { useLanguage } from '../lib/i18n/index.ts';
import { trpc } from '../lib/trpc.ts';
import { formatDate } from '../../shared/format/date.ts';
import { Modal } from './modal.tsx';
import { DialogFooter } from './dialog-footer.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { branch_publish_existing, dialog_error_message, dialog_required, select_version_current, select_version_empty, select_version_hint, select_version_label, select_version_publish };

type PickOption = { id: string; label: string; detail?: string; disabled?: boolean; disabledReason?: string };

export type PickOneDialogProps = {
  title: string;
  legend: string;
  hint?: string;
  emptyText: string;
  emptyIcon?: EmptyIcon;
  confirmLabel: string;
  /** undefined while loading. */
  options: PickOption[] | undefined;
  loadError?: unknown;
  onRetryLoad?: () => void;
  /** Runs the choice; a thrown error is shown in the dialog, which stays open. */
  onSubmit: (id: string) => Promise<void>;
  onClose: (done: boolean) => void;
};

/** One choice among radio buttons; options that cannot be chosen stay visible, disabled, with why. */
export function PickOneDialog(props: PickOneDialogProps) {
  const ids = { hint: useId(), problem: useId() };
  const [chosen, setChosen] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const options = props.options;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    if (!chosen) {
      setProblem(m.dialog_required());
      return;
    }
    setBusy(true);
    setProblem(undefined);
    try {
      await props.onSubmit(chosen);
      props.onClose(true);
    } catch (error) {
      setProblem(m.dialog_error_message({ text: errorText(toDisplayError(error)) }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal title={props.title} onCancel={() => props.onClose(false)}>
      <form className="dialog_form" onSubmit={submit} noValidate>
        {props.loadError ? <ErrorState error={props.loadError} onRetry={props.onRetryLoad} /> : null}
        {!options && !props.loadError ? <LoadingState /> : null}
        {options && options.length === 0 ? <EmptyState icon={props.emptyIcon} compact>
            {props.emptyText}
          </EmptyState> : null}
        {options && options.length > 0 ? (
          <fieldset className="field pick_one" aria-describedby={props.hint ? ids.hint : undefined}>
            <legend>{props.legend}</legend>
            {props.hint ? (
              <p id={ids.hint} className="field_hint">
                {props.hint}
              </p>
            ) : null}
            <div className="pick_one_list">
              {options.map((option, index) => (
                <label key={option.id} className={option.disabled ? 'choice pick_one_disabled' : 'choice'}>
                  <input
                    type="radio"
                    name="choice"
                    value={option.id}
                    disabled={option.disabled}
                    checked={chosen === option.id}
                    data-autofocus={index === options.findIndex((item) => !item.disabled) ? true : undefined}
                    onChange={() => {
                      setChosen(option.id);
                      setProblem(undefined);
                    }}
                  />
                  <span>
                    <span className="pick_one_label">{option.label}</span>
                    {option.detail ? <span className="pick_one_detail"> {option.detail}</span> : null}
                    {option.disabled && option.disabledReason ? <span className="pick_one_detail"> {option.disabledReason}</span> : null}
                  </span>
                </label>
              ))}
            </div>
          </fieldset>
        ) : null}
        <DialogFooter
          problem={problem}
          problemId={ids.problem}
          onCancel={() => props.onClose(false)}
          submit={options && options.length > 0 ? { label: props.confirmLabel, pending: busy } : undefined}
        />
      </form>
    </Modal>
  );
}

/** Publish existing version: the project's versions, the branch's current one disabled (the server refuses it). */
export function SelectVersionDialog({ projectId, currentVersionId, onSubmit, onClose }: { projectId: string; currentVersionId?: string; onSubmit: (versionId: string) => Promise<void>; onClose: (done: boolean) => void }) {
  const { language } = useLanguage();
  const versions = trpc.projects.versions.list.useQuery({ project: projectId });
  const options = versions.data?.map((version) => ({
    id: version.id,
    label: version.title,
    detail: formatDate(version.created, language),
    disabled: version.id === currentVersionId,
    disabledReason: m.select_version_current(),
  }));
  return (
    <PickOneDialog
      title={m.branch_publish_existing()}
      legend={m.select_version_label()}
      hint={currentVersionId ? m.select_version_hint() : undefined}
      emptyText={m.select_version_empty()}
      emptyIcon="packages"
      confirmLabel={m.select_version_publish()}
      options={options}
      loadError={versions.error}
      onRetryLoad={() => void versions.refetch()}
      onSubmit={onSubmit}
      onClose={onClose}
    />
  );
}
