import { dictionary } from '@zxcvbn-ts/language-common';
import { passwordProblemText, passwordShapeProblem, type PasswordProblem } from '../../../shared/schemas/password-rules.ts';
import { refusal } from '../../errors.ts';

/** zxcvbn-ts's list of the ≈ 49,000 most used passwords (lower-case), loaded on first use. */
let commonPasswords: Set<string> | undefined;

function isCommonPassword(password: string): boolean {
  commonPasswords ??= new Set(dictionary['passwords-common']);
  return commonPasswords.has(password.toLowerCase());
}

/** names: the account's sign-in name and display name (see passwordShapeProblem). */
function newPasswordProblem(password: string, names: (string | null | undefined)[], appName: string): PasswordProblem | undefined {
  const shape = passwordShapeProblem(password, ...names);
  if (shape) return shape;
  const lower = password.trim().toLowerCase();
  if (isCommonPassword(password) || isCommonPassword(password.trim()) || lower === appName.toLowerCase()) return 'common';
  return undefined;
}

/**
 * Refuses a password a new account (or a password change) may not use: 400 naming the field, with
 * the reason in details so clients can say it in the user's language.
 */
export function assertAcceptableNewPassword(password: string, names: (string | null | undefined)[], appName: string): void {
  const problem = newPasswordProblem(password, names, appName);
  if (problem) throw refusal('bad_param', `Invalid \`password\`: ${passwordProblemText[problem]}`, problem, { field: 'password' });
}
