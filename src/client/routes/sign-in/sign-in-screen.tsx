import { useEffect, useId, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { auth_already_signed_in } from '../../../shared/i18n/paraglide/messages/auth_already_signed_in.js';
import { auth_display_name } from '../../../shared/i18n/paraglide/messages/auth_display_name.js';
import { auth_go_register } from '../../../shared/i18n/paraglide/messages/auth_go_register.js';
import { auth_go_sign_in } from '../../../shared/i18n/paraglide/messages/auth_go_sign_in.js';
import { auth_have_account } from '../../../shared/i18n/paraglide/messages/auth_have_account.js';
import { auth_no_account } from '../../../shared/i18n/paraglide/messages/auth_no_account.js';
import { auth_other_providers } from '../../../shared/i18n/paraglide/messages/auth_other_providers.js';
import { auth_other_providers_button } from '../../../shared/i18n/paraglide/messages/auth_other_providers_button.js';
import { auth_password } from '../../../shared/i18n/paraglide/messages/auth_password.js';
import { auth_password_hint } from '../../../shared/i18n/paraglide/messages/auth_password_hint.js';
import { auth_pending } from '../../../shared/i18n/paraglide/messages/auth_pending.js';
import { auth_register_submit } from '../../../shared/i18n/paraglide/messages/auth_register_submit.js';
import { auth_register_title } from '../../../shared/i18n/paraglide/messages/auth_register_title.js';
import { auth_required_text } from '../../../shared/i18n/paraglide/messages/auth_required_text.js';
import { auth_required_title } from '../../../shared/i18n/paraglide/messages/auth_required_title.js';
import { auth_sign_in_submit } from '../../../shared/i18n/paraglide/messages/auth_sign_in_submit.js';
import { auth_sign_in_title } from '../../../shared/i18n/paraglide/messages/auth_sign_in_title.js';
import { auth_user_name_hint } from '../../../shared/i18n/paraglide/messages/auth_user_name_hint.js';
import { dialog_error_message } from '../../../shared/i18n/paraglide/messages/dialog_error_message.js';
import { not_found_home } from '../../../shared/i18n/paraglide/messages/not_found_home.js';
import { FormField } from '../../components/form-field.tsx';
import { homeCrumb, Page } from '../../components/page.tsx';
import { LoadingState } from '../../components/states.tsx';
import { openAuthDialog } from '../../dialogs/auth-dialog.tsx';
import { useDialogs } from '../../dialogs/dialog-provider.tsx';
import { useAuth } from '../../lib/auth/auth.tsx';
import { useSignInProviders } from '../../lib/instance.ts';
import { peekReturnTo, rememberReturnTo, takeReturnTo } from '../../lib/auth/return-to.ts';
import { fieldValue } from '../../lib/form.ts';
import { errorText, toDisplayError, type DisplayError } from '../../lib/errors.ts';
import { passwordShapeProblem } from '../../../shared/schemas/password-rules.ts';
import { passwordProblemOf, passwordProblemText } from './password-problem.ts';
import { UserNameField } from './user-name-field.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { auth_already_signed_in, auth_display_name, auth_go_register, auth_go_sign_in, auth_have_account, auth_no_account, auth_other_providers, auth_other_providers_button, auth_password, auth_password_hint, auth_pending, auth_register_submit, auth_register_title, auth_required_text, auth_required_title, auth_sign_in_submit, auth_sign_in_title, auth_user_name_hint, dialog_error_message, not_found_home };

/**
 * Password sign-in (intent login) and registration (intent register). With `required` it stands in
 * for every page of an instance that requires signing in, and stays on that page afterwards.
 */
export function SignInScreen({ intent, required = false }: { intent: 'login' | 'register'; required?: boolean }) {
  const auth = useAuth();
  const dialogs = useDialogs();
  const [location, navigate] = useLocation();
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<DisplayError | undefined>();
  const [signedIn, setSignedIn] = useState(false);
  const problemId = useId();
  const isRegister = intent === 'register';
  const title = isRegister ? m.auth_register_title() : m.auth_sign_in_title();
  const passwordProblem = problem ? passwordProblemOf(problem) : undefined;
  // The other services are offered only when the instance configured some (instance info signInProviders).
  const hasProviders = useSignInProviders().length > 0;

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending) return;
    const form = event.currentTarget;
    const displayName = fieldValue(form, 'title').trim();
    const name = fieldValue(form, 'name');
    const password = fieldValue(form, 'password');
    // The shape rules are checked here at once; the server also refuses common passwords.
    const shape = isRegister ? passwordShapeProblem(password, name, displayName) : undefined;
    if (shape) {
      setProblem({ code: 'bad_param', details: { field: 'password', reason: shape } });
      return;
    }
    setPending(true);
    setProblem(undefined);
    try {
      await auth.signInWithPassword({
        name,
        password,
        intent,
        ...(isRegister && displayName ? { title: displayName } : {}),
      });
      setSignedIn(true);
    } catch (error) {
      setProblem(toDisplayError(error));
      setPending(false);
    }
  };

  const otherServices = () => {
    const returnTo = required ? location + window.location.search : peekReturnTo();
    void openAuthDialog(dialogs, isRegister ? 'register' : 'login', returnTo);
  };

  // Leave once the new session is visible to every screen (the query cache notifies asynchronously),
  // so the page we return to does not see the visitor any more.
  useEffect(() => {
    if (signedIn && auth.user && !required) navigate(takeReturnTo(), { replace: true });
  }, [signedIn, auth.user, required, navigate]);

  if (signedIn && !required) return <LoadingState />;

  if (auth.user && !required) {
    return (
      <Page title={title} breadcrumb={[homeCrumb(), { label: title }]} pageClass="page_sign_in">
        <h1>{title}</h1>
        <p>{m.auth_already_signed_in({ name: auth.user.title })}</p>
        <Link href="/">{m.not_found_home()}</Link>
      </Page>
    );
  }

  return (
    <Page title={required ? m.auth_required_title() : title} breadcrumb={required ? [] : [homeCrumb(), { label: title }]} pageClass={isRegister ? 'page_register' : 'page_sign_in'}>
      <h1>{required ? m.auth_required_title() : title}</h1>
      {required ? <p>{m.auth_required_text()}</p> : null}
      <form className="form auth_form" onSubmit={submit} aria-describedby={problem ? problemId : undefined}>
        <UserNameField hint={isRegister ? m.auth_user_name_hint() : undefined} />
        <FormField label={m.auth_password()} hint={isRegister ? m.auth_password_hint() : undefined} invalid={Boolean(passwordProblem)}>
          {(control) => (
            <input
              {...control}
              name="password"
              type="password"
              className="input"
              autoComplete={isRegister ? 'new-password' : 'current-password'}
              required
              minLength={8}
              maxLength={256}
            />
          )}
        </FormField>
        {isRegister ? (
          <FormField label={m.auth_display_name()}>{(control) => <input {...control} name="title" className="input" autoComplete="nickname" maxLength={64} />}</FormField>
        ) : null}
        {problem ? (
          <p id={problemId} className="form_problem" role="alert" data-error-code={problem.code}>
            {passwordProblem ? passwordProblemText(passwordProblem) : m.dialog_error_message({ text: errorText(problem) })}
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" className="button button_primary" aria-disabled={pending ? true : undefined}>
            {pending ? m.auth_pending() : isRegister ? m.auth_register_submit() : m.auth_sign_in_submit()}
          </button>
        </div>
      </form>
      {hasProviders ? (
        <section className="auth_other" aria-label={m.auth_other_providers()}>
          <button type="button" className="button" onClick={otherServices}>
            {m.auth_other_providers_button()}
          </button>
        </section>
      ) : null}
      <p className="auth_switch">
        {isRegister ? m.auth_have_account() : m.auth_no_account()}{' '}
        <Link href={isRegister ? '/login' : '/register'} onClick={() => (required ? rememberReturnTo() : undefined)}>
          {isRegister ? m.auth_go_sign_in() : m.auth_go_register()}
        </Link>
      </p>
    </Page>
  );
}
