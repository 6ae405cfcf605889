import { adminRouter } from '../domains/admin/admin.trpc.ts';
import { authRouter } from '../domains/auth/auth.trpc.ts';
import { jobsRouter } from '../domains/jobs/jobs.trpc.ts';
import { packagesRouter } from '../domains/packages/packages.trpc.ts';
import { packageDownloadsRouter } from '../domains/packages/downloads.trpc.ts';
import { playRouter } from '../domains/packages/play.trpc.ts';
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
  packages: packagesRouter,
  packageDownloads: packageDownloadsRouter,
  play: playRouter,
  jobs: jobsRouter,
});

export type AppRouter = typeof appRouter;
