import { partQuerySchema } from '../../shared/schemas/packages.ts';
import { AppError } from '../errors.ts';

/** The query of a part PUT (token, part, hash: SHA-1 hex, lower-cased here); bad_param naming the first bad one. */
export function parsePartQuery(rawQuery: unknown): { token: string; part: number; hash: string } {
  const parsed = partQuerySchema.safeParse(rawQuery);
  if (!parsed.success) {
    const name = String(parsed.error.issues[0]?.path[0] ?? 'query');
    throw new AppError('bad_param', `Invalid \`${name}\``);
  }
  return { ...parsed.data, hash: parsed.data.hash.toLowerCase() };
}
