import { adminRouter } from '../domains/admin/admin.trpc.ts';
import { authRouter } from '../domains/auth/auth.trpc.ts';
import { browserPlayRouter } from '../domains/browser-play/browser-play.trpc.ts';
import { deploysRouter } from '../domains/deploys/deploys.trpc.ts';
import { cloudPlayRouter } from '../domains/cloud-play/cloud-play.trpc.ts';
import { contentImagesRouter } from '../domains/content-images/content-images.trpc.ts';
import { jobStatusRouter } from '../domains/job-status/job-status.trpc.ts';
import { packageDownloadsRouter } from '../domains/packages/downloads/downloads.trpc.ts';
import { packageRecordProcedures } from '../domains/packages/records/records.trpc.ts';
import { packageUploadProcedures } from '../domains/packages/uploads/uploads.trpc.ts';
import { instanceRouter } from '../domains/instance/instance.trpc.ts';
import { localAppRouter } from '../domains/local-app/local-app.trpc.ts';
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
  deploys: deploysRouter,
  store: storeRouter,
  packages: router({ ...packageRecordProcedures, ...packageUploadProcedures }),
  packageDownloads: packageDownloadsRouter,
  contentImages: contentImagesRouter,
  play: browserPlayRouter,
  cloudPlay: cloudPlayRouter,
  jobs: jobStatusRouter,
  localApp: localAppRouter,
});

export type AppRouter = typeof appRouter;
