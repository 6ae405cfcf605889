import { z } from 'zod';
import { okReplySchema } from '../../../shared/api/replies.ts';
import { routes } from '../../../shared/api/routes.ts';
import { branchHistoryItemSchema, createVersionInput, historyPageQuery, patchVersionInput, versionInBranchSchema, versionSchema } from '../../../shared/schemas/versions.ts';
import { bindOperations } from '../../operations/binding.ts';
import { createVersion, deleteVersion, getVersion, listBranchHistory, listVersionBranches, listVersions, patchVersion, publishVersion } from './versions.service.ts';

const reads = ['wrong_auth', 'not_found'] as const;
const writes = ['wrong_auth', 'unauthorized', 'not_found', 'insufficient_privileges'] as const;

export const versionOperations = bindOperations('Versions', routes.projects.versions, {
  list: { reply: z.array(versionSchema), summary: 'Versions the caller may see, newest first', errors: reads, run: ({ deps, actor, params }) => listVersions(deps, actor, params.project) },
  create: {
    body: createVersionInput,
    reply: versionSchema,
    summary: 'Create a version from finalized packages (publishVersion)',
    errors: [...writes, 'name_conflict', 'not_finalized', 'limit_exceeded'],
    run: ({ deps, actor, params, body }) => createVersion(deps, actor, params.project, body),
  },
  get: { reply: versionSchema, summary: 'A version', errors: reads, run: ({ deps, actor, params }) => getVersion(deps, actor, params.project, params.version) },
  patch: {
    body: patchVersionInput,
    reply: versionSchema,
    summary: 'Change the title or description of a version (patchVersion)',
    errors: [...writes, 'name_conflict'],
    run: ({ deps, actor, params, body }) => patchVersion(deps, actor, params.project, params.version, body),
  },
  delete: {
    reply: okReplySchema,
    summary: 'Delete a version that is current on no branch (deleteVersion)',
    errors: [...writes, 'not_empty'],
    run: async ({ deps, actor, params }) => {
      await deleteVersion(deps, actor, params.project, params.version);
      return { ok: true };
    },
  },
  branches: {
    query: historyPageQuery,
    reply: z.array(versionInBranchSchema),
    summary: 'Where a version was published',
    errors: reads,
    run: ({ deps, actor, params, query }) => listVersionBranches(deps, actor, params.project, params.version, query),
  },
  history: {
    query: historyPageQuery,
    reply: z.array(branchHistoryItemSchema),
    summary: "A branch's publish history, newest first",
    errors: reads,
    run: ({ deps, actor, params, query }) => listBranchHistory(deps, actor, params.project, params.branch, query),
  },
  publish: {
    reply: branchHistoryItemSchema,
    summary: 'Publish an existing version to a branch',
    errors: [...writes, 'limit_exceeded'],
    run: ({ deps, actor, params }) => publishVersion(deps, actor, params.project, params.branch, params.version),
  },
});
