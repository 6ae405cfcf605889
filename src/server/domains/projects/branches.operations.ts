import { z } from 'zod';
import { okReplySchema } from '../../../shared/api/replies.ts';
import { routes } from '../../../shared/api/routes.ts';
import { branchSchema, createBranchInput, patchBranchInput } from '../../../shared/schemas/branches.ts';
import { bindOperations } from '../../operations/binding.ts';
import { createBranch, deleteBranch, listBranches, patchBranch } from './branches.service.ts';

const writes = ['wrong_auth', 'unauthorized', 'not_found', 'insufficient_privileges'] as const;

export const branchOperations = bindOperations('Branches', routes.projects.branches, {
  list: { reply: z.array(branchSchema), summary: 'The branches the caller may see, by title', errors: ['wrong_auth', 'not_found'], run: ({ deps, actor, params }) => listBranches(deps, actor, params.project) },
  create: {
    body: createBranchInput,
    reply: branchSchema,
    summary: 'Create a private branch (createBranch)',
    errors: [...writes, 'name_conflict', 'limit_exceeded'],
    run: ({ deps, actor, params, body }) => createBranch(deps, actor, params.project, body),
  },
  patch: {
    body: patchBranchInput,
    reply: branchSchema,
    summary: 'Rename a branch (patchBranch), toggle its public access (patchProject) or set its retention (deleteVersion)',
    errors: [...writes, 'name_conflict'],
    run: ({ deps, actor, params, body }) => patchBranch(deps, actor, params.project, params.branch, body),
  },
  delete: {
    reply: okReplySchema,
    summary: 'Delete a branch and its publish history (deleteBranch)',
    errors: writes,
    run: async ({ deps, actor, params }) => {
      await deleteBranch(deps, actor, params.project, params.branch);
      return { ok: true };
    },
  },
});
