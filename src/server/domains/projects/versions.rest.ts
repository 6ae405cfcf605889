import { Elysia } from 'elysia';
import { z } from 'zod';
import { branchIdSchema } from '../../../shared/schemas/branches.ts';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import {
  branchHistoryItemSchema,
  createVersionInput,
  historyPageQuery,
  patchVersionInput,
  versionIdSchema,
  versionInBranchSchema,
  versionSchema,
} from '../../../shared/schemas/versions.ts';
import type { Deps } from '../../deps.ts';
import { actorResolver } from '../../http/actor.ts';
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

const ok = z.object({ ok: z.boolean() });
const params = z.object({ project: projectIdSchema });
const versionParams = params.extend({ version: versionIdSchema });
const branchParams = params.extend({ branch: branchIdSchema });

export function versionsRoutes(deps: Deps) {
  return new Elysia({ tags: ['Versions'] })
    .use(actorResolver(deps))
    .get('/projects/:project/versions', ({ actor, params }) => listVersions(deps, actor, params.project), {
      params,
      response: z.array(versionSchema),
      detail: { summary: 'Versions the caller may see, newest first' },
    })
    .post('/projects/:project/versions', ({ actor, params, body }) => createVersion(deps, actor, params.project, body), {
      params,
      body: createVersionInput,
      response: versionSchema,
      detail: { summary: 'Create a version from finalized packages (publishVersion)' },
    })
    .get('/projects/:project/versions/:version', ({ actor, params }) => getVersion(deps, actor, params.project, params.version), {
      params: versionParams,
      response: versionSchema,
      detail: { summary: 'A version' },
    })
    .patch('/projects/:project/versions/:version', ({ actor, params, body }) => patchVersion(deps, actor, params.project, params.version, body), {
      params: versionParams,
      body: patchVersionInput,
      response: versionSchema,
      detail: { summary: 'Change the title or description of a version (patchVersion)' },
    })
    .delete(
      '/projects/:project/versions/:version',
      async ({ actor, params }) => {
        await deleteVersion(deps, actor, params.project, params.version);
        return { ok: true };
      },
      { params: versionParams, response: ok, detail: { summary: 'Delete a version that is current on no branch (deleteVersion)' } },
    )
    .get(
      '/projects/:project/versions/:version/branches',
      ({ actor, params, query }) => listVersionBranches(deps, actor, params.project, params.version, query),
      { params: versionParams, query: historyPageQuery, response: z.array(versionInBranchSchema), detail: { summary: 'Where a version was published' } },
    )
    .get(
      '/projects/:project/branches/:branch/versions',
      ({ actor, params, query }) => listBranchHistory(deps, actor, params.project, params.branch, query),
      { params: branchParams, query: historyPageQuery, response: z.array(branchHistoryItemSchema), detail: { summary: "A branch's publish history, newest first" } },
    )
    .post(
      '/projects/:project/branches/:branch/versions/:version',
      ({ actor, params }) => publishVersion(deps, actor, params.project, params.branch, params.version),
      { params: branchParams.extend({ version: versionIdSchema }), response: branchHistoryItemSchema, detail: { summary: 'Publish an existing version to a branch' } },
    );
}
