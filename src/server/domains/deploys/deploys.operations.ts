import { z } from 'zod';
import { okReplySchema } from '../../../shared/api/replies.ts';
import { routes } from '../../../shared/api/routes.ts';
import {
  availableSiteSchema,
  createDeployCredentialInput,
  createDeploySiteInput,
  deletedDeployCredentialSchema,
  deployCredentialSchema,
  deployJobSchema,
  deploySiteSchema,
  deployVersionInput,
  startedDeploySchema,
} from '../../../shared/schemas/deploy.ts';
import { bindOperations } from '../../operations/binding.ts';
import { deployVersion, listVersionDeploys } from './deploy-version.service.ts';
import { createDeployCredential, createDeploySite, deleteDeployCredential, deleteDeploySite, listAvailableSites, listDeployCredentials, listDeploySites } from './deploys.service.ts';

const own = ['wrong_auth', 'unauthorized', 'not_found'] as const;
const project = ['wrong_auth', 'unauthorized', 'not_found', 'insufficient_privileges'] as const;

export const deployCredentialOperations = bindOperations('Deploys', routes.deploys.credentials, {
  list: { reply: z.array(deployCredentialSchema), summary: "The caller's deploy credentials (never their keys), each with the deploy sites using it", errors: own, run: ({ deps, actor }) => listDeployCredentials(deps, actor) },
  create: {
    body: createDeployCredentialInput,
    reply: deployCredentialSchema,
    summary: 'Add a deploy credential: an itch.io API key (checked with itch.io, stored sealed); Steam: not_supported',
    errors: [...own, 'wrong_credentials', 'not_supported', 'timeout'],
    run: ({ deps, actor, body }) => createDeployCredential(deps, actor, body),
  },
  delete: {
    reply: deletedDeployCredentialSchema,
    summary: 'Delete a deploy credential and the deploy sites using it (returned)',
    errors: own,
    run: ({ deps, actor, params }) => deleteDeployCredential(deps, actor, params.credential),
  },
  availableSites: {
    reply: z.array(availableSiteSchema),
    summary: "The credential's itch.io games, to pick a deploy site from",
    errors: [...own, 'wrong_credentials', 'timeout'],
    run: ({ deps, actor, params }) => listAvailableSites(deps, actor, params.credential),
  },
});

export const deploySiteOperations = bindOperations('Deploys', routes.deploys.sites, {
  list: { reply: z.array(deploySiteSchema), summary: "The project's deploy sites (members)", errors: project, run: ({ deps, actor, params }) => listDeploySites(deps, actor, params.project) },
  create: {
    body: createDeploySiteInput,
    reply: deploySiteSchema,
    summary: 'Add a deploy site with one of your credentials (createDeploySite)',
    errors: [...project, 'name_conflict', 'wrong_credentials', 'timeout'],
    run: ({ deps, actor, params, body }) => createDeploySite(deps, actor, params.project, body),
  },
  delete: {
    reply: okReplySchema,
    summary: 'Delete a deploy site (deleteDeploySite)',
    errors: project,
    run: async ({ deps, actor, params }) => {
      await deleteDeploySite(deps, actor, params.project, params.site);
      return { ok: true };
    },
  },
});

export const versionDeployOperations = bindOperations('Deploys', routes.deploys.version, {
  start: {
    body: deployVersionInput,
    reply: startedDeploySchema,
    summary: "Deploy the version's packages to a deploy site, one job per package (deployVersionToSite); follow them with jobs.state",
    errors: [...project, 'not_supported'],
    run: ({ deps, actor, params, body }) => deployVersion(deps, actor, params.project, params.version, body),
  },
  list: {
    reply: z.array(deployJobSchema),
    summary: "The version's deploy jobs of the last week, newest first, with their tokens (members)",
    errors: project,
    run: ({ deps, actor, params }) => listVersionDeploys(deps, actor, params.project, params.version),
  },
});
