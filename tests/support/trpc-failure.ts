import { TRPCClientError } from '@trpc/client';

export type TrpcFailure = { code: string; message: string; httpStatus: number };

/** The catalogued code, message and HTTP status a failed tRPC call carries (the same REST answers). */
export async function trpcFailure(call: Promise<unknown>): Promise<TrpcFailure> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof TRPCClientError)) throw error;
    return { code: error.data?.code, message: error.message, httpStatus: error.data?.httpStatus };
  }
  throw new Error('the call succeeded');
}

/** Only the code and status, for exact comparisons that leave the wording to the REST tests. */
export async function trpcFailureStatus(call: Promise<unknown>): Promise<Pick<TrpcFailure, 'code' | 'httpStatus'>> {
  const { code, httpStatus } = await trpcFailure(call);
  return { code, httpStatus };
}
