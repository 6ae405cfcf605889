import { useId, type ReactNode } from 'react';
import { field_limit_reached } from '../../shared/i18n/paraglide/messages/field_limit_reached.js';

/** What the control of a FormField spreads on itself: its id (the label's target) and its description. */
// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { field_limit_reached };

type FieldControlProps = {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: true;
};

export type FormFieldProps = {
  label: ReactNode;
  /** Help under the control (p.field_hint), read with it through aria-describedby. */
  hint?: ReactNode;
  /** What is wrong with the value (p.field_problem, role alert); marks the control invalid and describes it. */
  error?: ReactNode;
  /** Marks the control invalid without an error of its own (a problem shown for the whole form says why). */
  invalid?: boolean;
  /** Ids of other elements that describe the control (such as the form's problem), read after hint and error. */
  describedBy?: string;
  /** The control's id when the caller needs to know it; generated otherwise. */
  id?: string;
  /**
   * The control's maxLength and its value's length: at the limit a note says so, since the browser
   * cuts longer text (typed or pasted) without a word.
   */
  limit?: { length: number; max: number };
  /** More classes for the wrapper (always .field). */
  className?: string;
  /** Renders the control (input, select or textarea) with the given props; may add elements after it. */
  children: (control: FieldControlProps) => ReactNode;
};

/**
 * One labelled form field: `<div class="field">` with a label bound to the control by id, the control,
 * then its optional hint and error, both wired to the control through aria-describedby (hint first), and
 * aria-invalid while there is an error. The hint's id is `${id}-hint`, the error's `${id}-problem`, the
 * note at the length limit's `${id}-limit`.
 *
 *   <FormField label={m.title()} error={problem}>{(control) => <input {...control} className="input" />}</FormField>
 */
export function FormField({ label, hint, error, invalid, describedBy, id: givenId, limit, className, children }: FormFieldProps) {
  const generatedId = useId();
  const id = givenId ?? generatedId;
  const hintId = `${id}-hint`;
  const errorId = `${id}-problem`;
  const limitId = `${id}-limit`;
  const hasHint = hint !== undefined && hint !== null && hint !== false;
  const hasError = error !== undefined && error !== null && error !== false && error !== '';
  const atLimit = limit !== undefined && limit.length >= limit.max;
  const description = [hasHint ? hintId : '', hasError ? errorId : '', atLimit ? limitId : '', describedBy ?? ''].filter(Boolean).join(' ');
  const control: FieldControlProps = { id };
  if (description) control['aria-describedby'] = description;
  if (hasError || invalid) control['aria-invalid'] = true;
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children(control)}
      {hasHint ? (
        <p id={hintId} className="field_hint">
          {hint}
        </p>
      ) : null}
      {hasError ? (
        <p id={errorId} className="field_problem" role="alert">
          {error}
        </p>
      ) : null}
      {/* Always in the page (empty below the limit), so screen readers announce it when it fills. */}
      {limit ? (
        <p id={limitId} className={atLimit ? 'field_hint field_limit' : 'field_limit'} role="status">
          {atLimit ? m.field_limit_reached({ max: String(limit.max) }) : ''}
        </p>
      ) : null}
    </div>
  );
}
