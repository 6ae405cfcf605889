/**
 * Why the server refused, when one spec §8 code covers refusals a client must tell apart: the server
 * puts one of these in `details.reason` (src/server/errors.ts `refusal`), and clients switch on it
 * (`refusalReasonOf`), never on the English message, which is for people and may change.
 *
 * Two details.reason values are not refusal reasons and are not listed: an ended cloud session's
 * not_found carries its end reason (cloudSessionStateSchema.reason), and the body guard's nesting
 * refusal says its limit in words.
 */
export const refusalReasons = [
  // Deploys (spec §5): the deploy call's refusals, and why a site cannot take deploys.
  'no_packages',
  'shared_channel',
  'channel_busy',
  'butler_missing',
  'steam_not_supported',
  // A deploy key itch.io refused, or one that cannot push builds.
  'key_refused',
  'key_cannot_push',
  // A sign-in or deploy provider's side (details.provider names it).
  'provider_refused',
  'invalid_assertion',
  'provider_unavailable',
  'provider_error',
  'provider_answer',
  // External sign-in.
  'no_account',
  'linked_to_another_user',
  'already_registered',
  'sign_in_attempt_expired',
  'link_only',
  // Ways to sign in.
  'last_sign_in_method',
  'started_by_another_user',
  'password_exists',
  // A new password (field password): the rule it broke (PasswordProblem).
  'too_short',
  'too_long',
  'blank',
  'same_as_name',
  'repetitive',
  'common',
  // A field that must be given (the admin password reset's --name).
  'required',
  // Invites (not_found alike).
  'expired',
  'used_up',
  // Cloud play.
  'missing_privilege',
  'missing_tags',
  'no_machine_online',
  'already_connected',
  'machine_token',
] as const;

export type RefusalReason = (typeof refusalReasons)[number];

export function isRefusalReason(value: unknown): value is RefusalReason {
  return typeof value === 'string' && (refusalReasons as readonly string[]).includes(value);
}

/** The reason of a refusal's details (REST `details`, tRPC `data.details`), when it is one of the list. */
export function refusalReasonOf(details: unknown): RefusalReason | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const reason = (details as { reason?: unknown }).reason;
  return isRefusalReason(reason) ? reason : undefined;
}
