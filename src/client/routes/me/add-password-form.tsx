import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { auth_password } from '../../../shared/i18n/paraglide/messages/auth_password.js';
import { auth_password_hint } from '../../../shared/i18n/paraglide/messages/auth_password_hint.js';
import { auth_pending } from '../../../shared/i18n/paraglide/messages/auth_pending.js';
import { auth_user_name_hint } from '../../../shared/i18n/paraglide/messages/auth_user_name_hint.js';
import { dialog_cancel } from '../../../shared/i18n/paraglide/messages/dialog_cancel.js';
import { dialog_error_message } from '../../../shared/i18n/paraglide/messages/dialog_error_message.js';
import { me_password_add } from '../../../shared/i18n/paraglide/messages/me_password_add.js';
import { me_password_intro } from '../../../shared/i18n/paraglide/messages/me_password_intro.js';
import { me_password_submit } from '../../../shared/i18n/paraglide/messages/me_password_submit.js';
import { FormField } from '../../components/form-field.tsx';
import { errorText, toDisplayError, type DisplayError } from '../../lib/errors.ts';
import { fieldValue } from '../../lib/form.ts';
import { trpc } from '../../lib/trpc.ts';
import { passwordShapeProblem, type PasswordProblem } from '../../../shared/schemas/password-rules.ts';
import { passwordProblemOf, passwordProblemText } from '../sign-in/password-problem.ts';
import { UserNameField } from '../sign-in/user-name-field.tsx';
import { useAuth } from '../../lib/auth/auth.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { auth_password, auth_password_hint, auth_pending, auth_user_name_hint, dialog_cancel, dialog_error_message, me_password_add, me_password_intro, me_password_submit };

/**
 * 'Add a password sign-in' for a user who signs in only with providers: a sign-in name and a password,
 * checked here by the registration's shape rules (src/shared/schemas/password-rules.ts) before the
 * server, which also refuses common passwords and taken names. Closes itself once added.
 */
export function AddPasswordForm({ id, onClose }: { id: string; onClose: () => void }) {
  const auth = useAuth();
  const utils = trpc.useUtils();
  const addPassword = trpc.users.addPassword.useMutation();
  const [pending, setPending] = useState(false);
  const [passwordProblem, setPasswordProblem] = useState<PasswordProblem | undefined>();
  const [problem, setProblem] = useState<DisplayError | undefined>();
  const problemId = useId();
  const formRef = useRef<HTMLFormElement>(null);

  useEffect(() => {
    formRef.current?.querySelector<HTMLInputElement>('input')?.focus();
  }, []);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending) return;
    const form = event.currentTarget;
    const name = fieldValue(form, 'name').trim();
    const password = fieldValue(form, 'password');
    setProblem(undefined);
    const shape = passwordShapeProblem(password, name, auth.user?.title);
    setPasswordProblem(shape);
    if (shape) return;
    setPending(true);
    try {
      await addPassword.mutateAsync({ name, password });
      await Promise.all([utils.users.credentials.invalidate(), utils.users.me.invalidate()]);
    } catch (error) {
      const shown = toDisplayError(error);
      const refusedPassword = passwordProblemOf(shown);
      if (refusedPassword) setPasswordProblem(refusedPassword);
      else setProblem(shown);
      setPending(false);
      return;
    }
    onClose();
  };

  return (
    <form id={id} ref={formRef} className="form credential_password_form" onSubmit={submit} aria-labelledby={`${id}-heading`} aria-describedby={problem ? problemId : undefined}>
      <h3 id={`${id}-heading`}>{m.me_password_add()}</h3>
      <p className="section_intro">{m.me_password_intro()}</p>
      <UserNameField hint={m.auth_user_name_hint()} />
      <FormField label={m.auth_password()} hint={m.auth_password_hint()} error={passwordProblem ? passwordProblemText(passwordProblem) : undefined}>
        {(control) => <input {...control} name="password" type="password" className="input" autoComplete="new-password" required minLength={8} maxLength={256} />}
      </FormField>
      {problem ? (
        <p id={problemId} className="form_problem" role="alert" data-error-code={problem.code}>
          {m.dialog_error_message({ text: errorText(problem) })}
        </p>
      ) : null}
      <div className="actions">
        <button type="button" className="button" onClick={onClose}>
          {m.dialog_cancel()}
        </button>
        <button type="submit" className="button button_primary" aria-disabled={pending ? true : undefined}>
          {pending ? m.auth_pending() : m.me_password_submit()}
        </button>
      </div>
    </form>
  );
}
