import { z } from 'zod';
import {
  createProjectInput,
  descriptionSchema,
  patchProjectInput,
  projectIdSchema,
  createInviteInput,
  inviteIdSchema,
  inviteTokenSchema,
  setProjectUserInput,
  starSchema,
} from '../../../shared/schemas/projects.ts';
import { putProjectMediaInput } from '../../../shared/schemas/project-media.ts';
import { procedure, router } from '../../trpc/init.ts';
import { getProjectMedia, putProjectMedia } from '../content-images/project-media.service.ts';
import { branchIdSchema, createBranchInput, patchBranchInput } from '../../../shared/schemas/branches.ts';
import { createBranch, deleteBranch, listBranches, patchBranch } from './branches.service.ts';
import { createVersionInput, historyPageQuery, patchVersionInput, versionIdSchema } from '../../../shared/schemas/versions.ts';
import {
  createVersion,
  deleteVersion,
  getVersion,
  listBranchHistory,
  listVersionBranches,
  listVersions,
  patchVersion,
  publishVersion,
} from './versions.service.ts';
import { createInvite, deleteInvite, joinInvite, listInvites, viewInvite } from './invites.service.ts';
import { leaveProject, listProjectUsers, setProjectUser } from './members.service.ts';
import {
  createProject,
  deleteProject,
  getDescription,
  getProject,
  getProjectQuotas,
  getStar,
  listMyProjects,
  patchProject,
  putDescription,
  putStar,
} from './projects.service.ts';

const byProject = z.object({ project: projectIdSchema });
const byVersion = byProject.extend({ version: versionIdSchema });

export const projectsRouter = router({
  mine: procedure.query(({ ctx }) => listMyProjects(ctx.deps, ctx.actor)),
  create: procedure.input(createProjectInput).mutation(({ ctx, input }) => createProject(ctx.deps, ctx.actor, input)),
  get: procedure.input(byProject).query(({ ctx, input }) => getProject(ctx.deps, ctx.actor, input.project)),
  patch: procedure
    .input(byProject.and(patchProjectInput))
    .mutation(({ ctx, input }) => patchProject(ctx.deps, ctx.actor, input.project, { title: input.title, isPublic: input.isPublic, storeTags: input.storeTags })),
  delete: procedure.input(byProject).mutation(async ({ ctx, input }) => {
    await deleteProject(ctx.deps, ctx.actor, input.project);
    return { ok: true };
  }),
  quotas: procedure.input(byProject).query(({ ctx, input }) => getProjectQuotas(ctx.deps, ctx.actor, input.project)),
  description: router({
    get: procedure.input(byProject).query(({ ctx, input }) => getDescription(ctx.deps, ctx.actor, input.project)),
    put: procedure
      .input(byProject.extend({ description: descriptionSchema }))
      .mutation(({ ctx, input }) => putDescription(ctx.deps, ctx.actor, input.project, input.description)),
  }),
  /** Cover and screenshots: media.get, media.put {project, cover, screenshots}. */
  media: router({
    get: procedure.input(byProject).query(({ ctx, input }) => getProjectMedia(ctx.deps, ctx.actor, input.project, ctx.appUrl)),
    put: procedure.input(byProject.and(putProjectMediaInput)).mutation(({ ctx, input }) => {
      const { project, ...body } = input;
      return putProjectMedia(ctx.deps, ctx.actor, project, body, ctx.appUrl);
    }),
  }),
  star: router({
    get: procedure.input(byProject).query(({ ctx, input }) => getStar(ctx.deps, ctx.actor, input.project)),
    put: procedure
      .input(byProject.extend({ starred: starSchema }))
      .mutation(({ ctx, input }) => putStar(ctx.deps, ctx.actor, input.project, input.starred)),
  }),
  users: router({
    list: procedure.input(byProject).query(({ ctx, input }) => listProjectUsers(ctx.deps, ctx.actor, input.project)),
    set: procedure
      .input(byProject.extend(setProjectUserInput.shape))
      .mutation(({ ctx, input }) => setProjectUser(ctx.deps, ctx.actor, input.project, { user: input.user, role: input.role })),
    leave: procedure.input(byProject).mutation(async ({ ctx, input }) => {
      await leaveProject(ctx.deps, ctx.actor, input.project);
      return { ok: true };
    }),
  }),
  invites: router({
    list: procedure.input(byProject).query(({ ctx, input }) => listInvites(ctx.deps, ctx.actor, input.project)),
    create: procedure
      .input(byProject.extend(createInviteInput.shape))
      .mutation(({ ctx, input }) => {
        const { project, ...body } = input;
        return createInvite(ctx.deps, ctx.actor, project, body);
      }),
    delete: procedure.input(byProject.extend({ invite: inviteIdSchema })).mutation(async ({ ctx, input }) => {
      await deleteInvite(ctx.deps, ctx.actor, input.project, input.invite);
      return { ok: true };
    }),
    view: procedure.input(z.object({ token: inviteTokenSchema })).query(({ ctx, input }) => viewInvite(ctx.deps, ctx.actor, input.token)),
    join: procedure.input(z.object({ token: inviteTokenSchema })).mutation(({ ctx, input }) => joinInvite(ctx.deps, ctx.actor, input.token)),
  }),
  branches: router({
    list: procedure.input(byProject).query(({ ctx, input }) => listBranches(ctx.deps, ctx.actor, input.project)),
    create: procedure
      .input(byProject.extend(createBranchInput.shape))
      .mutation(({ ctx, input }) => createBranch(ctx.deps, ctx.actor, input.project, { title: input.title })),
    patch: procedure
      .input(byProject.extend({ branch: branchIdSchema }).and(patchBranchInput))
      .mutation(({ ctx, input }) => patchBranch(ctx.deps, ctx.actor, input.project, input.branch, { title: input.title, isPublic: input.isPublic, retention: input.retention })),
    delete: procedure.input(byProject.extend({ branch: branchIdSchema })).mutation(async ({ ctx, input }) => {
      await deleteBranch(ctx.deps, ctx.actor, input.project, input.branch);
      return { ok: true };
    }),
  }),
  versions: router({
    list: procedure.input(byProject).query(({ ctx, input }) => listVersions(ctx.deps, ctx.actor, input.project)),
    create: procedure.input(byProject.extend(createVersionInput.shape)).mutation(({ ctx, input }) => {
      const { project, ...body } = input;
      return createVersion(ctx.deps, ctx.actor, project, body);
    }),
    get: procedure.input(byVersion).query(({ ctx, input }) => getVersion(ctx.deps, ctx.actor, input.project, input.version)),
    patch: procedure
      .input(byVersion.and(patchVersionInput))
      .mutation(({ ctx, input }) => patchVersion(ctx.deps, ctx.actor, input.project, input.version, { title: input.title, description: input.description })),
    delete: procedure.input(byVersion).mutation(async ({ ctx, input }) => {
      await deleteVersion(ctx.deps, ctx.actor, input.project, input.version);
      return { ok: true };
    }),
    branches: procedure
      .input(byVersion.extend(historyPageQuery.shape))
      .query(({ ctx, input }) => listVersionBranches(ctx.deps, ctx.actor, input.project, input.version, { before: input.before, count: input.count })),
    history: procedure
      .input(byProject.extend({ branch: branchIdSchema }).extend(historyPageQuery.shape))
      .query(({ ctx, input }) => listBranchHistory(ctx.deps, ctx.actor, input.project, input.branch, { before: input.before, count: input.count })),
    publish: procedure
      .input(byVersion.extend({ branch: branchIdSchema }))
      .mutation(({ ctx, input }) => publishVersion(ctx.deps, ctx.actor, input.project, input.branch, input.version)),
  }),
});
