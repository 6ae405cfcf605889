import { auth_password_blank } from '../../../shared/i18n/paraglide/messages/auth_password_blank.js';
import { auth_password_common } from '../../../shared/i18n/paraglide/messages/auth_password_common.js';
import { auth_password_repetitive } from '../../../shared/i18n/paraglide/messages/auth_password_repetitive.js';
import { auth_password_same_as_name } from '../../../shared/i18n/paraglide/messages/auth_password_same_as_name.js';
import { auth_password_too_long } from '../../../shared/i18n/paraglide/messages/auth_password_too_long.js';
import { auth_password_too_short } from '../../../shared/i18n/paraglide/messages/auth_password_too_short.js';
import type { PasswordProblem } from '../../../shared/schemas/password-rules.ts';
import { refusalReasonOf, type RefusalReason } from '../../../shared/refusal-reasons.ts';
import type { DisplayError } from '../../lib/errors.ts';

const texts: Record<PasswordProblem, () => string> = {
  too_short: auth_password_too_short,
  too_long: auth_password_too_long,
  blank: auth_password_blank,
  same_as_name: auth_password_same_as_name,
  repetitive: auth_password_repetitive,
  common: auth_password_common,
};

function isPasswordProblem(reason: RefusalReason): reason is PasswordProblem {
  return Object.hasOwn(texts, reason);
}

export function passwordProblemText(problem: PasswordProblem): string {
  return texts[problem]();
}

/** The password rule a refused registration broke, from the error's details ({ field, reason }). */
export function passwordProblemOf(error: DisplayError): PasswordProblem | undefined {
  const reason = refusalReasonOf(error.details);
  if (error.code !== 'bad_param' || reason === undefined || (error.details as { field?: unknown }).field !== 'password') return undefined;
  return isPasswordProblem(reason) ? reason : undefined;
}
