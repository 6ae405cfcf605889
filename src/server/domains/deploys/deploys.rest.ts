import { Elysia } from 'elysia';
import { z } from 'zod';
import {
  availableSiteSchema,
  createDeployCredentialInput,
  createDeploySiteInput,
  deletedDeployCredentialSchema,
  deployCredentialIdSchema,
  deployCredentialSchema,
  deploySiteIdSchema,
  deploySiteSchema,
  deployJobSchema,
  deployVersionInput,
  startedDeploySchema,
} from '../../../shared/schemas/deploy.ts';
import { projectIdSchema } from '../../../shared/schemas/projects.ts';
import { versionIdSchema } from '../../../shared/schemas/versions.ts';
import type { Deps } from '../../deps.ts';
import { actorResolver } from '../../http/actor.ts';
import {
  createDeployCredential,
  createDeploySite,
  deleteDeployCredential,
  deleteDeploySite,
  listAvailableSites,
  listDeployCredentials,
  listDeploySites,
} from './deploys.service.ts';
import { deployVersion, listVersionDeploys } from './deploy-version.service.ts';

const ok = z.object({ ok: z.boolean() });
const byCredential = z.object({ deploy_credential: deployCredentialIdSchema });
const byProject = z.object({ project: projectIdSchema });
const byVersion = byProject.extend({ version: versionIdSchema });

/** Deploy credentials (/users/me) and deploy sites (/projects/{project}), spec §7. */
export function deploysRoutes(deps: Deps) {
  return new Elysia({ tags: ['Deploys'] })
    .use(actorResolver(deps))
    .get('/users/me/deploy-credentials', ({ actor }) => listDeployCredentials(deps, actor), {
      response: z.array(deployCredentialSchema),
      detail: { summary: "The caller's deploy credentials (never their keys), each with the deploy sites using it" },
    })
    // The body is checked by the service (the key's rule depends on the provider), not by Elysia.
    .post('/users/me/deploy-credentials', ({ actor, body }) => createDeployCredential(deps, actor, body), {
      body: createDeployCredentialInput,
      response: deployCredentialSchema,
      detail: { summary: 'Add a deploy credential: an itch.io API key (checked with itch.io, stored sealed); Steam: not_supported' },
    })
    .delete('/users/me/deploy-credentials/:deploy_credential', ({ actor, params }) => deleteDeployCredential(deps, actor, params.deploy_credential), {
      params: byCredential,
      response: deletedDeployCredentialSchema,
      detail: { summary: 'Delete a deploy credential and the deploy sites using it (returned)' },
    })
    .get('/users/me/deploy-credentials/:deploy_credential/available-sites', ({ actor, params }) => listAvailableSites(deps, actor, params.deploy_credential), {
      params: byCredential,
      response: z.array(availableSiteSchema),
      detail: { summary: "The credential's itch.io games, to pick a deploy site from" },
    })
    .get('/projects/:project/deploy-sites', ({ actor, params }) => listDeploySites(deps, actor, params.project), {
      params: byProject,
      response: z.array(deploySiteSchema),
      detail: { summary: "The project's deploy sites (members)" },
    })
    .post('/projects/:project/deploy-sites', ({ actor, params, body }) => createDeploySite(deps, actor, params.project, body), {
      params: byProject,
      body: createDeploySiteInput,
      response: deploySiteSchema,
      detail: { summary: 'Add a deploy site with one of your credentials (createDeploySite)' },
    })
    .delete(
      '/projects/:project/deploy-sites/:deploy_site',
      async ({ actor, params }) => {
        await deleteDeploySite(deps, actor, params.project, params.deploy_site);
        return { ok: true };
      },
      { params: byProject.extend({ deploy_site: deploySiteIdSchema }), response: ok, detail: { summary: 'Delete a deploy site (deleteDeploySite)' } },
    )
    // The spec's refusals in words (no packages, a shared channel) come from the service, for REST and tRPC alike.
    .post('/projects/:project/versions/:version/deploy', ({ actor, params, body }) => deployVersion(deps, actor, params.project, params.version, body), {
      params: byVersion,
      body: deployVersionInput,
      response: startedDeploySchema,
      detail: { summary: "Deploy the version's packages to a deploy site, one job per package (deployVersionToSite); follow them with GET /jobs" },
    })
    .get('/projects/:project/versions/:version/deploys', ({ actor, params }) => listVersionDeploys(deps, actor, params.project, params.version), {
      params: byVersion,
      response: z.array(deployJobSchema),
      detail: { summary: "The version's deploy jobs of the last week, newest first, with their tokens (members)" },
    });
}
