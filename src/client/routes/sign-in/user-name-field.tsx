import { auth_user_name } from '../../../shared/i18n/paraglide/messages/auth_user_name.js';
import { FormField } from '../../components/form-field.tsx';

/**
 * The user-name field of every password form (sign-in, register, adding a password on /me): the
 * browser checks the same length and characters the server's rule does before anything is sent.
 */
export function UserNameField({ hint }: { hint?: string }) {
  return (
    <FormField label={auth_user_name()} hint={hint}>
      {(control) => (
        <input
          {...control}
          name="name"
          className="input"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          required
          minLength={3}
          maxLength={32}
          pattern="[A-Za-z0-9][A-Za-z0-9._\-]*"
        />
      )}
    </FormField>
  );
}
