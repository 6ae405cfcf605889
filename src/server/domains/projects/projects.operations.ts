import { z } from 'zod';
import { routes } from '../../../shared/api/routes.ts';
import { okReplySchema } from '../../../shared/api/replies.ts';
import {
  createProjectInput,
  descriptionSchema,
  patchProjectInput,
  projectSchema,
  projectUserSchema,
  quotasSchema,
  setProjectUserInput,
  starSchema,
} from '../../../shared/schemas/projects.ts';
import { bindOperations } from '../../operations/binding.ts';
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

/** Reading what a project shows the caller: an unknown or hidden project is not_found. */
const reads = ['wrong_auth', 'not_found'] as const;
/** Changing it: signed in, with the role's action. */
const writes = ['wrong_auth', 'unauthorized', 'not_found', 'insufficient_privileges'] as const;

export const projectOperations = bindOperations('Projects', routes.projects, {
  mine: { reply: z.array(projectSchema), summary: "The caller's projects: memberships and starred public projects", errors: ['wrong_auth', 'unauthorized'], run: ({ deps, actor }) => listMyProjects(deps, actor) },
  create: {
    body: createProjectInput,
    reply: projectSchema,
    summary: 'Create a project (privilege create_project); the creator is its owner',
    errors: ['wrong_auth', 'unauthorized', 'insufficient_privileges', 'name_conflict'],
    run: ({ deps, actor, body }) => createProject(deps, actor, body),
  },
  get: { reply: projectSchema, summary: 'A project with what the caller may do in it', errors: reads, run: ({ deps, actor, params }) => getProject(deps, actor, params.project) },
  patch: {
    body: patchProjectInput,
    reply: projectSchema,
    summary: 'Rename a project, toggle its public access or set its store tags (genre and such)',
    errors: [...writes, 'name_conflict'],
    run: ({ deps, actor, params, body }) => patchProject(deps, actor, params.project, body),
  },
  delete: {
    reply: okReplySchema,
    summary: 'Delete a project with everything in it (owner only)',
    errors: writes,
    run: async ({ deps, actor, params }) => {
      await deleteProject(deps, actor, params.project);
      return { ok: true };
    },
  },
  quotas: { reply: quotasSchema, summary: "The project's quotas (bytes, count, seconds; null = no limit)", errors: reads, run: ({ deps, actor, params }) => getProjectQuotas(deps, actor, params.project) },
});

export const descriptionOperations = bindOperations('Projects', routes.projects.description, {
  get: { reply: descriptionSchema, summary: "The project's description", errors: reads, run: ({ deps, actor, params }) => getDescription(deps, actor, params.project) },
  put: { body: descriptionSchema, reply: descriptionSchema, summary: "Replace the project's description", errors: writes, run: ({ deps, actor, params, body }) => putDescription(deps, actor, params.project, body) },
});

export const starOperations = bindOperations('Projects', routes.projects.star, {
  get: { reply: starSchema, summary: 'Whether the caller starred the project', errors: [...reads, 'unauthorized'], run: ({ deps, actor, params }) => getStar(deps, actor, params.project) },
  put: { body: starSchema, reply: starSchema, summary: 'Star or unstar the project', errors: [...reads, 'unauthorized'], run: ({ deps, actor, params, body }) => putStar(deps, actor, params.project, body) },
});

export const memberOperations = bindOperations('Projects', routes.projects.users, {
  list: { reply: z.array(projectUserSchema), summary: 'Team members: owner first, then role, then name', errors: reads, run: ({ deps, actor, params }) => listProjectUsers(deps, actor, params.project) },
  set: {
    body: setProjectUserInput,
    reply: z.array(projectUserSchema),
    summary: "Change a member's role, approve a pending member, or remove a member (no role)",
    errors: writes,
    run: ({ deps, actor, params, body }) => setProjectUser(deps, actor, params.project, body),
  },
  leave: {
    reply: okReplySchema,
    summary: 'Leave the project (not the owner)',
    errors: writes,
    run: async ({ deps, actor, params }) => {
      await leaveProject(deps, actor, params.project);
      return { ok: true };
    },
  },
});
