import { router, sessionlessProcedure } from '../../trpc/init.ts';
import { getInstanceInfo } from './instance.service.ts';

export const instanceRouter = router({
  info: sessionlessProcedure.query(({ ctx }) => getInstanceInfo(ctx.deps)),
});
