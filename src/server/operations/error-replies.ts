import { z } from 'zod';
import { httpStatusOfCode, type ServerErrorCode } from '../../shared/errors.ts';

/**
 * The refusals of an operation for its OpenAPI responses: one entry per HTTP status, the body of spec
 * §8 with the codes it can carry. Every operation can answer bad_param (inputs the schemas refuse) and,
 * when it reads the bearer, wrong_auth (an unknown token).
 */
export function errorRepliesOf(errors: readonly ServerErrorCode[], readsBearer: boolean): Record<number, z.ZodType> {
  const codes = new Set<ServerErrorCode>(['bad_param', ...(readsBearer ? (['wrong_auth'] as const) : []), ...errors]);
  const byStatus = new Map<number, ServerErrorCode[]>();
  for (const code of codes) byStatus.set(httpStatusOfCode[code], [...(byStatus.get(httpStatusOfCode[code]) ?? []), code]);
  const replies: Record<number, z.ZodType> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    replies[status] = z
      .object({ code: z.enum(list as [ServerErrorCode, ...ServerErrorCode[]]), message: z.string(), details: z.record(z.string(), z.unknown()).optional() })
      .describe(`Refused: ${list.join(', ')}`);
  }
  return replies;
}
