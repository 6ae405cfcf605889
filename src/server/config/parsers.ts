import { z } from 'zod';

/** Parsers several settings share (settings.ts). */

export const booleanText = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

export const port = z.coerce.number().int().min(0).max(65535);

export const urlText = (protocols: string[]) =>
  z.string().refine((value) => {
    try {
      return protocols.includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, `must be a URL starting with ${protocols.join(' or ')}`);

/** A provider address; trailing slashes dropped so paths join on. */
export const httpUrl = urlText(['http:', 'https:']).transform((value) => value.replace(/\/+$/, ''));

/** OAuth client ids, secrets and API keys: printable ASCII, no spaces. */
export const clientText = z.string().max(512).regex(/^[\x21-\x7E]+$/, 'must be printable ASCII without spaces');

/** Comma-separated items, blanks dropped. */
export const commaList = z.string().transform((text) => text.split(',').map((item) => item.trim()).filter(Boolean));
