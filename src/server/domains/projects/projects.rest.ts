import { Elysia } from 'elysia';
import { z } from 'zod';
import {
  createProjectInput,
  descriptionSchema,
  patchProjectInput,
  projectIdSchema,
  projectSchema,
  projectUserSchema,
  quotasSchema,
  setProjectUserInput,
  starSchema,
} from '../../../shared/schemas/projects.ts';
import { projectMediaSchema, putProjectMediaInput } from '../../../shared/schemas/project-media.ts';
import type { Deps } from '../../deps.ts';
import { actorResolver } from '../../http/actor.ts';
import { getProjectMedia, putProjectMedia } from '../content-images/project-media.service.ts';
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

const ok = z.object({ ok: z.boolean() });
const params = z.object({ project: projectIdSchema });
const appUrlOf = (deps: Deps, request: Request) => deps.config.publicUrl ?? new URL(request.url).origin;

export function projectsRoutes(deps: Deps) {
  return new Elysia({ tags: ['Projects'] })
    .use(actorResolver(deps))
    .get('/users/me/projects', ({ actor }) => listMyProjects(deps, actor), {
      response: z.array(projectSchema),
      detail: { summary: "The caller's projects: memberships and starred public projects" },
    })
    .post('/projects', ({ actor, body }) => createProject(deps, actor, body), {
      body: createProjectInput,
      response: projectSchema,
      detail: { summary: 'Create a project (privilege create_project); the creator is its owner' },
    })
    .get('/projects/:project', ({ actor, params }) => getProject(deps, actor, params.project), {
      params,
      response: projectSchema,
      detail: { summary: 'A project with what the caller may do in it' },
    })
    .patch('/projects/:project', ({ actor, params, body }) => patchProject(deps, actor, params.project, body), {
      params,
      body: patchProjectInput,
      response: projectSchema,
      detail: { summary: 'Rename a project, toggle its public access or set its store tags (genre and such)' },
    })
    .delete(
      '/projects/:project',
      async ({ actor, params }) => {
        await deleteProject(deps, actor, params.project);
        return { ok: true };
      },
      { params, response: ok, detail: { summary: 'Delete a project with everything in it (owner only)' } },
    )
    .get('/projects/:project/quotas', ({ actor, params }) => getProjectQuotas(deps, actor, params.project), {
      params,
      response: quotasSchema,
      detail: { summary: "The project's quotas (bytes, count, seconds; null = no limit)" },
    })
    .get('/projects/:project/description', ({ actor, params }) => getDescription(deps, actor, params.project), {
      params,
      response: descriptionSchema,
      detail: { summary: "The project's description" },
    })
    .put('/projects/:project/description', ({ actor, params, body }) => putDescription(deps, actor, params.project, body), {
      params,
      body: descriptionSchema,
      response: descriptionSchema,
      detail: { summary: "Replace the project's description" },
    })
    .get('/projects/:project/media', ({ actor, params, request }) => getProjectMedia(deps, actor, params.project, appUrlOf(deps, request)), {
      params,
      response: projectMediaSchema,
      detail: { summary: "The project's cover and screenshots for its store page (url: each image's largest size)" },
    })
    .put('/projects/:project/media', ({ actor, params, body, request }) => putProjectMedia(deps, actor, params.project, body, appUrlOf(deps, request)), {
      params,
      body: putProjectMediaInput,
      response: projectMediaSchema,
      detail: { summary: 'Set the cover and screenshots (finalized content images of the project, screenshots in order; patchProject)' },
    })
    .get('/projects/:project/star', ({ actor, params }) => getStar(deps, actor, params.project), {
      params,
      response: starSchema,
      detail: { summary: 'Whether the caller starred the project' },
    })
    .put('/projects/:project/star', ({ actor, params, body }) => putStar(deps, actor, params.project, body), {
      params,
      body: starSchema,
      response: starSchema,
      detail: { summary: 'Star or unstar the project' },
    })
    .get('/projects/:project/users', ({ actor, params }) => listProjectUsers(deps, actor, params.project), {
      params,
      response: z.array(projectUserSchema),
      detail: { summary: 'Team members: owner first, then role, then name' },
    })
    .put('/projects/:project/users', ({ actor, params, body }) => setProjectUser(deps, actor, params.project, body), {
      params,
      body: setProjectUserInput,
      response: z.array(projectUserSchema),
      detail: { summary: "Change a member's role, approve a pending member, or remove a member (no role)" },
    })
    .post(
      '/projects/:project/users/leave',
      async ({ actor, params }) => {
        await leaveProject(deps, actor, params.project);
        return { ok: true };
      },
      { params, response: ok, detail: { summary: 'Leave the project (not the owner)' } },
    );
}
