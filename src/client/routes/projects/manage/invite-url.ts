import { inviteHref } from '../links.ts';

/** The full address people open to join (the token is shown only once, at creation). */
export function inviteUrl(token: string): string {
  return `${location.origin}${inviteHref(token)}`;
}
