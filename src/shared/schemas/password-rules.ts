/**
 * What makes a new password refused (NIST SP 800-63B style: a length, no composition rules, no
 * guessable choices). The shape rules are here, shared by the server and the registration form; the
 * server also refuses the most common passwords (domains/auth/password-policy.ts), a list too large
 * for the browser bundle.
 */
export const passwordMinLength = 8;
export const passwordMaxLength = 256;

export type PasswordProblem = 'too_short' | 'too_long' | 'blank' | 'same_as_name' | 'repetitive' | 'common';

/** One character repeated, or a run such as 12345678, abcdefgh or 98765432. */
function isRepetitive(password: string): boolean {
  const codes = [...password.toLowerCase()].map((char) => char.codePointAt(0)!);
  const step = codes[1]! - codes[0]!;
  if (Math.abs(step) > 1) return false;
  return codes.every((code, index) => index === 0 || code - codes[index - 1]! === step);
}

/**
 * The first rule a new password breaks, without the common-password list; undefined when none. names:
 * what the account is known by (its sign-in name and display name), which the password may not be,
 * whatever the case and surrounding spaces.
 */
export function passwordShapeProblem(password: string, ...names: (string | null | undefined)[]): PasswordProblem | undefined {
  if ([...password].length < passwordMinLength) return 'too_short';
  if (password.length > passwordMaxLength) return 'too_long';
  if (password.trim() === '') return 'blank';
  const lower = password.trim().toLowerCase();
  if (names.some((name) => name && lower === name.trim().toLowerCase())) return 'same_as_name';
  if (isRepetitive(password)) return 'repetitive';
  return undefined;
}

/** English wording for API errors and the CLI; the web client has its own translated texts. */
export const passwordProblemText: Record<PasswordProblem, string> = {
  too_short: `it must be at least ${passwordMinLength} characters`,
  too_long: `it must be at most ${passwordMaxLength} characters`,
  blank: 'it must not be only spaces',
  same_as_name: 'it must not be the user name or the display name',
  repetitive: 'it must not be one character repeated or a simple sequence such as 12345678',
  common: 'it is one of the most common passwords; choose another',
};
