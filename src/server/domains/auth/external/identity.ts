import type { SignInProviderId } from '../../../../shared/schemas/external-auth.ts';
import { stripInvisibleFormatting } from '../../../../shared/schemas/text.ts';
import { ProviderAnswerError } from './provider-errors.ts';

/** Who a provider vouched for: name is its stable account id, as a string of digits (never a login, which can change). */
export type ExternalIdentity = {
  provider: SignInProviderId;
  name: string;
  title: string;
  profileUrl: string | null;
  profilePictureUrl: string | null;
};

const titleLength = 64;
const urlLength = 2048;
const controlCharacters = /[\p{Cc}\p{Cs}]/gu;
const hasControlCharacter = /[\p{Cc}\p{Cs}]/u;

/**
 * What a provider says is displayed on profiles and store pages: titles are cleaned like typed ones
 * (control and invisible formatting characters out, one line, 64 characters), and only http(s) URLs
 * are kept (a javascript: link on a store page would be a script injection).
 */
export function identityOf(
  provider: SignInProviderId,
  fields: { id: unknown; titles: unknown[]; profileUrl?: unknown; pictureUrl?: unknown },
): ExternalIdentity {
  const name = typeof fields.id === 'number' && Number.isSafeInteger(fields.id) ? String(fields.id) : fields.id;
  if (typeof name !== 'string' || !/^[0-9]{1,32}$/.test(name)) throw new ProviderAnswerError(provider, 'no account id');
  const title = fields.titles.map(cleanTitle).find((text) => text !== '') ?? name;
  return { provider, name, title, profileUrl: cleanUrl(fields.profileUrl), profilePictureUrl: cleanUrl(fields.pictureUrl) };
}

function cleanTitle(value: unknown): string {
  if (typeof value !== 'string') return '';
  const text = stripInvisibleFormatting(value).replace(controlCharacters, ' ').replace(/\s+/g, ' ').trim();
  return Array.from(text).slice(0, titleLength).join('').trim();
}

function cleanUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > urlLength || hasControlCharacter.test(value)) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}
