import { Elysia } from 'elysia';
import { z } from 'zod';
import { branchIdSchema, branchSchema, createBranchInput, patchBranchInput } from '../../../shared/schemas/branches.ts';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import type { Deps } from '../../deps.ts';
import { actorResolver } from '../../http/actor.ts';
import { createBranch, deleteBranch, listBranches, patchBranch } from './branches.service.ts';

const ok = z.object({ ok: z.boolean() });
const params = z.object({ project: projectIdSchema });
const branchParams = params.extend({ branch: branchIdSchema });

export function branchesRoutes(deps: Deps) {
  return new Elysia({ tags: ['Branches'] })
    .use(actorResolver(deps))
    .get('/projects/:project/branches', ({ actor, params }) => listBranches(deps, actor, params.project), {
      params,
      response: z.array(branchSchema),
      detail: { summary: 'The branches the caller may see, by title' },
    })
    .post('/projects/:project/branches', ({ actor, params, body }) => createBranch(deps, actor, params.project, body), {
      params,
      body: createBranchInput,
      response: branchSchema,
      detail: { summary: 'Create a private branch (createBranch)' },
    })
    .patch('/projects/:project/branches/:branch', ({ actor, params, body }) => patchBranch(deps, actor, params.project, params.branch, body), {
      params: branchParams,
      body: patchBranchInput,
      response: branchSchema,
      detail: { summary: 'Rename a branch (patchBranch), toggle its public access (patchProject) or set its retention (deleteVersion)' },
    })
    .delete(
      '/projects/:project/branches/:branch',
      async ({ actor, params }) => {
        await deleteBranch(deps, actor, params.project, params.branch);
        return { ok: true };
      },
      { params: branchParams, response: ok, detail: { summary: 'Delete a branch and its publish history (deleteBranch)' } },
    );
}
