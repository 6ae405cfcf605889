import { adminRouter } from '../domains/admin/admin.trpc.ts';
import { authRouter } from '../domains/auth/auth.trpc.ts';
import { instanceRouter } from '../domains/instance/instance.trpc.ts';
import { projectsRouter } from '../domains/projects/projects.trpc.ts';
import { storeRouter } from '../domains/store/store.trpc.ts';
import { usersRouter } from '../domains/users/users.trpc.ts';
import { router } from './init.ts';

export const appRouter = router({
  auth: authRouter,
  users: usersRouter,
  admin: adminRouter,
  instance: instanceRouter,
  projects: projectsRouter,
  store: storeRouter,
});

export type AppRouter = typeof appRouter;
