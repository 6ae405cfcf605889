import { operations } from '../operations/operations.ts';
import { trpcRecordOf } from '../operations/trpc-door.ts';
import { router } from './init.ts';

/** The tRPC door of every operation, with the route table's names (src/server/operations). */
export const appRouter = router(trpcRecordOf(operations));

export type AppRouter = typeof appRouter;
