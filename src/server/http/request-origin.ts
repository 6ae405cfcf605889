import type { Config } from '../config.ts';
import type { RequestOrigin } from '../domains/auth/auth.service.ts';

type ServerLike = { requestIP(request: Request): { address: string } | null } | null;

/** The caller's address (first X-Forwarded-For hop only behind a trusted proxy) and user agent. */
export function requestOriginOf(config: Config, request: Request, server: ServerLike): RequestOrigin {
  const forwarded = config.trustProxy ? request.headers.get('x-forwarded-for')?.split(',')[0]?.trim() : undefined;
  return {
    address: forwarded || server?.requestIP(request)?.address,
    userAgent: request.headers.get('user-agent') ?? undefined,
  };
}
