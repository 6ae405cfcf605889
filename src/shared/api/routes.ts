import type { z } from 'zod';
import type { passwordSignInInput, sessionSchema } from '../schemas/auth.ts';
import type { branchSchema, createBranchInput, patchBranchInput } from '../schemas/branches.ts';
import type { instanceInfoSchema } from '../schemas/instance.ts';
import type { jobStateSchema, jobStreamQuery, jobTokensInput, startedJobSchema } from '../schemas/jobs.ts';
import type { downloadQuery, downloadUrlSchema, packageSpaceSchema } from '../schemas/package-downloads.ts';
import type { createdPackageSchema, createPackageInput, finalizePackageInput, packageSchema, partDescriptorSchema, partQuerySchema, patchPackageInput, projectPackageSchema } from '../schemas/packages.ts';
import type {
  createdInviteSchema,
  createInviteInput,
  createProjectInput,
  descriptionSchema,
  inviteSchema,
  inviteTokenSchema,
  inviteViewSchema,
  joinedInviteSchema,
  patchProjectInput,
  projectSchema,
  projectUserSchema,
  quotasSchema,
  setProjectQuotasInput,
  setProjectUserInput,
  starSchema,
} from '../schemas/projects.ts';
import type { storeProjectSchema } from '../schemas/store.ts';
import type { projectMediaSchema, putProjectMediaInput, storeIndexPageSchema, storeIndexQuery } from '../schemas/project-media.ts';
import type { createContentImageInput, createdContentImageSchema, finalizeContentImageInput, finalizedContentImageSchema } from '../schemas/content-images.ts';
import type { adminPrivilegeInput, createApiTokenInput, createdApiTokenSchema, meSchema, patchMeInput, sessionItemSchema } from '../schemas/users.ts';
import type { branchHistoryItemSchema, createVersionInput, historyPageQuery, patchVersionInput, versionInBranchSchema, versionSchema } from '../schemas/versions.ts';
import type {
  addPasswordInput,
  credentialQuery,
  credentialSchema,
  externalAuthFinishQuery,
  externalAuthStartQuery,
  finishedExternalAuthSchema,
  finishTokenQuery,
  patchCredentialInput,
  startedExternalAuthSchema,
} from '../schemas/external-auth.ts';
import type {
  cloudConnectInput,
  cloudInitReplySchema,
  cloudMachineIdInput,
  cloudMachineSchema,
  createCloudMachineInput,
  createdCloudMachineSchema,
  cloudPlayAvailabilitySchema,
  cloudSessionStateSchema,
  cloudSessionTokenInput,
  createdCloudSessionSchema,
  internalPackageAccessSchema,
  machineProvideInput,
  machineProvideReplySchema,
} from '../schemas/cloud-play.ts';
import type {
  availableSiteSchema,
  createDeployCredentialInput,
  createDeploySiteInput,
  deletedDeployCredentialSchema,
  deployCredentialSchema,
  deployJobSchema,
  deploySiteSchema,
  deployVersionInput,
  startedDeploySchema,
} from '../schemas/deploy.ts';
import type { localAppDownloadsSchema } from '../schemas/local-helper.ts';
import type { docsPageSchema, okReplySchema, playUrlSchema } from './replies.ts';
import { del, get, patch, post, put } from './route.ts';

type ListOf<T extends z.ZodType> = z.ZodArray<T>;
type Ok = typeof okReplySchema;
type ByToken = z.ZodObject<{ token: typeof inviteTokenSchema }>;

const project = '/projects/:project';
const pkg = `${project}/packages/:package` as const;
const storePackage = '/store/projects/:project/branches/:branch/packages/:package';

/**
 * Every operation of the API (spec §7), once: its name (the tRPC procedure's, and the key callers use),
 * method and path under `/api` (REST). Query, body and reply are the types of the shared zod schemas
 * (bodies as z.input, replies as z.infer), so changing a schema or a path is a type error in every
 * caller. The server binds each row to its service in the domain's `*.operations.ts` and derives both
 * doors from that (src/server/operations); callers outside React use createApiClient(...).call(routes.x.y,
 * { params, query, body }), React screens the tRPC hooks of the same name (docs/architecture.md).
 */
export const routes = {
  auth: {
    session: get('/auth/session').reply<typeof sessionSchema>(),
    password: post('/auth/password').body<typeof passwordSignInInput>().reply<typeof sessionSchema>(),
    clear: post('/auth/clear').reply<Ok>(),
    externalStart: post('/auth/external/start').query<typeof externalAuthStartQuery>().reply<typeof startedExternalAuthSchema>(),
    externalFinish: post('/auth/external/finish').query<typeof externalAuthFinishQuery>().reply<typeof finishedExternalAuthSchema>(),
    /** With a finish token whose identity has a user (hasUser): signs in, sets the session cookie. */
    signInExternal: post('/users/auth').query<typeof finishTokenQuery>().reply<typeof sessionSchema>(),
    /** With a finish token of intent register and no user: makes the account, signs in. */
    registerExternal: post('/users/register').query<typeof finishTokenQuery>().reply<typeof sessionSchema>(),
  },
  users: {
    me: get('/users/me').reply<typeof meSchema>(),
    rename: patch('/users/me').body<typeof patchMeInput>().reply<typeof meSchema>(),
    delete: del('/users/me').reply<Ok>(),
    sessions: {
      list: get('/users/me/sessions').reply<ListOf<typeof sessionItemSchema>>(),
      create: post('/users/me/sessions').body<typeof createApiTokenInput>().reply<typeof createdApiTokenSchema>(),
      revoke: del('/users/me/sessions/:session').reply<Ok>(),
    },
    credentials: get('/users/me/credentials').reply<ListOf<typeof credentialSchema>>(),
    /** With a finish token of intent link, started by this same user. */
    linkCredential: post('/users/me/credentials').query<typeof finishTokenQuery>().reply<typeof credentialSchema>(),
    unlinkCredential: del('/users/me/credentials').query<typeof credentialQuery>().reply<Ok>(),
    patchCredential: patch('/users/me/credentials').query<typeof credentialQuery>().body<typeof patchCredentialInput>().reply<typeof credentialSchema>(),
    addPassword: post('/users/me/password').body<typeof addPasswordInput>().reply<typeof credentialSchema>(),
  },
  /** Instance administrators (others: not_found). */
  admin: {
    users: get('/admin/users').reply<ListOf<typeof meSchema>>(),
    grantPrivilege: post('/admin/privileges/grant').body<typeof adminPrivilegeInput>().reply<typeof meSchema>(),
    revokePrivilege: post('/admin/privileges/revoke').body<typeof adminPrivilegeInput>().reply<typeof meSchema>(),
    /** Per-project quota overrides: a number (0 = no limit) or null for the instance default. */
    setProjectQuotas: put('/admin/project-quotas').body<typeof setProjectQuotasInput>().reply<typeof quotasSchema>(),
    /** Cloud-play host machines: the token of a new one is in create's reply only. */
    cloudMachines: {
      list: get('/admin/cloud-machines').reply<ListOf<typeof cloudMachineSchema>>(),
      create: post('/admin/cloud-machines').body<typeof createCloudMachineInput>().reply<typeof createdCloudMachineSchema>(),
      revoke: del('/admin/cloud-machines/:machine').reply<typeof cloudMachineSchema>(),
    },
    /** A job re-encoding every content image's sizes (follow it with jobs.state or jobs.events). */
    optimizeContentImages: post('/admin/maintenance/optimize-content-images').reply<typeof startedJobSchema>(),
  },
  instance: {
    info: get('/instance').reply<typeof instanceInfoSchema>(),
  },
  projects: {
    /** The caller's projects: memberships and starred public projects. */
    mine: get('/users/me/projects').reply<ListOf<typeof projectSchema>>(),
    create: post('/projects').body<typeof createProjectInput>().reply<typeof projectSchema>(),
    get: get(project).reply<typeof projectSchema>(),
    patch: patch(project).body<typeof patchProjectInput>().reply<typeof projectSchema>(),
    delete: del(project).reply<Ok>(),
    quotas: get(`${project}/quotas`).reply<typeof quotasSchema>(),
    description: {
      get: get(`${project}/description`).reply<typeof descriptionSchema>(),
      put: put(`${project}/description`).body<typeof descriptionSchema, 'description'>('description').reply<typeof descriptionSchema>(),
    },
    /** Cover and screenshots for the store page (anyone who sees the project reads; patchProject writes). */
    media: {
      get: get(`${project}/media`).reply<typeof projectMediaSchema>(),
      put: put(`${project}/media`).body<typeof putProjectMediaInput>().reply<typeof projectMediaSchema>(),
    },
    star: {
      get: get(`${project}/star`).reply<typeof starSchema>(),
      put: put(`${project}/star`).body<typeof starSchema, 'starred'>('starred').reply<typeof starSchema>(),
    },
    users: {
      list: get(`${project}/users`).reply<ListOf<typeof projectUserSchema>>(),
      set: put(`${project}/users`).body<typeof setProjectUserInput>().reply<ListOf<typeof projectUserSchema>>(),
      leave: post(`${project}/users/leave`).reply<Ok>(),
    },
    invites: {
      list: get(`${project}/invites`).reply<ListOf<typeof inviteSchema>>(),
      create: post(`${project}/invites`).body<typeof createInviteInput>().reply<typeof createdInviteSchema>(),
      delete: del(`${project}/invites/:invite`).reply<Ok>(),
      view: get('/invites').query<ByToken>().reply<typeof inviteViewSchema>(),
      join: post('/invites').query<ByToken>().reply<typeof joinedInviteSchema>(),
    },
    branches: {
      list: get(`${project}/branches`).reply<ListOf<typeof branchSchema>>(),
      create: post(`${project}/branches`).body<typeof createBranchInput>().reply<typeof branchSchema>(),
      patch: patch(`${project}/branches/:branch`).body<typeof patchBranchInput>().reply<typeof branchSchema>(),
      delete: del(`${project}/branches/:branch`).reply<Ok>(),
    },
    versions: {
      list: get(`${project}/versions`).reply<ListOf<typeof versionSchema>>(),
      create: post(`${project}/versions`).body<typeof createVersionInput>().reply<typeof versionSchema>(),
      get: get(`${project}/versions/:version`).reply<typeof versionSchema>(),
      patch: patch(`${project}/versions/:version`).body<typeof patchVersionInput>().reply<typeof versionSchema>(),
      delete: del(`${project}/versions/:version`).reply<Ok>(),
      /** Where a version was published. */
      branches: get(`${project}/versions/:version/branches`).query<typeof historyPageQuery>().reply<ListOf<typeof versionInBranchSchema>>(),
      /** A branch's publish history, newest first. */
      history: get(`${project}/branches/:branch/versions`).query<typeof historyPageQuery>().reply<ListOf<typeof branchHistoryItemSchema>>(),
      publish: post(`${project}/branches/:branch/versions/:version`).reply<typeof branchHistoryItemSchema>(),
    },
  },
  deploys: {
    /** The caller's deploy credentials (never their keys), each with the deploy sites using it. */
    credentials: {
      list: get('/users/me/deploy-credentials').reply<ListOf<typeof deployCredentialSchema>>(),
      create: post('/users/me/deploy-credentials').body<typeof createDeployCredentialInput>().reply<typeof deployCredentialSchema>(),
      /** Removes the deploy sites using it too (spec §6), and names them in the reply. */
      delete: del('/users/me/deploy-credentials/:credential').reply<typeof deletedDeployCredentialSchema>(),
      availableSites: get('/users/me/deploy-credentials/:credential/available-sites').reply<ListOf<typeof availableSiteSchema>>(),
    },
    sites: {
      list: get(`${project}/deploy-sites`).reply<ListOf<typeof deploySiteSchema>>(),
      create: post(`${project}/deploy-sites`).body<typeof createDeploySiteInput>().reply<typeof deploySiteSchema>(),
      delete: del(`${project}/deploy-sites/:site`).reply<Ok>(),
    },
    version: {
      /** One job per package (deployVersionToSite); follow them with jobs.state and their tokens. */
      start: post(`${project}/versions/:version/deploy`).body<typeof deployVersionInput>().reply<typeof startedDeploySchema>(),
      /** The version's deploy jobs of the last week, newest first, each with its token (members). */
      list: get(`${project}/versions/:version/deploys`).reply<ListOf<typeof deployJobSchema>>(),
    },
  },
  store: {
    /** The store index: public projects with a public branch, by title in the reader's collation, paged. */
    index: get('/store/projects').query<typeof storeIndexQuery>().reply<typeof storeIndexPageSchema>(),
    project: get('/store/projects/:project').reply<typeof storeProjectSchema>(),
    sitemap: get('/store/sitemap.xml').stream(),
  },
  packages: {
    list: get(`${project}/packages`).reply<ListOf<typeof projectPackageSchema>>(),
    create: post(`${project}/packages`).body<typeof createPackageInput>().reply<typeof createdPackageSchema>(),
    get: get(pkg).reply<typeof packageSchema>(),
    patch: patch(pkg).body<typeof patchPackageInput>().reply<typeof packageSchema>(),
    delete: del(pkg).reply<Ok>(),
    /** A version's packages, in order. */
    ofVersion: get(`${project}/versions/:version/packages`).reply<ListOf<typeof packageSchema>>(),
    /** PUT to the create reply's uploadUrl (call with `url`): query token, part, hash (SHA-1 hex); the body is the part. */
    uploadPart: put('/uploads/:package').query<typeof partQuerySchema>().raw().reply<typeof partDescriptorSchema>(),
    finalize: put(`${pkg}/finalize`).body<typeof finalizePackageInput>().reply<typeof packageSchema>(),
    resolve: post(`${pkg}/resolve`).reply<typeof startedJobSchema>(),
  },
  packageDownloads: {
    /** A signed URL (no bearer needed) of the archive, its index (filter=index) or a ZIP (filter=zip). */
    url: get(`${pkg}/download`).query<typeof downloadQuery>().reply<typeof downloadUrlSchema>(),
    /** REST: the .torrent file; tRPC: its name and bytes in JSON (torrentFileSchema), for a page to save. */
    torrent: get(`${pkg}/torrent`).stream(),
    space: get(`${pkg}/space`).reply<typeof packageSpaceSchema>(),
    storeUrl: get(`${storePackage}/download`).query<typeof downloadQuery>().reply<typeof downloadUrlSchema>(),
    storeTorrent: get(`${storePackage}/torrent`).stream(),
    storeSpace: get(`${storePackage}/space`).reply<typeof packageSpaceSchema>(),
    /** The bytes a download URL points to (signed in its path: no bearer); Range and HEAD. */
    file: get('/files/:package/:kind/:expires/:signature/:filename').stream(),
    /** A public package's ZIP without a signature (the torrent's web seed). */
    publicFile: get('/files/:package/:kind/public/:filename').stream(),
  },
  contentImages: {
    /** Spec §4 paste flow: the record, then the bytes as part 0 to uploadInfo.uploadUrl, then finalize. */
    create: post(`${project}/content/images`).body<typeof createContentImageInput>().reply<typeof createdContentImageSchema>(),
    /** PUT to the create reply's uploadUrl (call with `url`): the image's bytes as part 0. */
    uploadPart: put('/uploads/content-images/:image').query<typeof partQuerySchema>().raw().reply<typeof partDescriptorSchema>(),
    finalize: put(`${project}/content/images/:image/finalize`).body<typeof finalizeContentImageInput>().reply<typeof finalizedContentImageSchema>(),
  },
  play: {
    /** The URL that plays an os:web package on the play origin. */
    packageUrl: get(`${pkg}/play`).reply<typeof playUrlSchema>(),
    storePackageUrl: get(`${storePackage}/play`).reply<typeof playUrlSchema>(),
  },
  cloudPlay: {
    /** A session for the caller on a package (privilege cloud_play, tags os:linux and arch:x86). */
    create: post(`${pkg}/cloud-play`).reply<typeof createdCloudSessionSchema>(),
    /** Whether a machine is online to take a session now (any caller; a yes or no only). */
    availability: get('/cloud-play/availability').reply<typeof cloudPlayAvailabilitySchema>(),
    /** The agent's offer as JSON text, held a few seconds for it; `timeout` (503) until a machine has made it: ask again after 1 s. */
    init: post('/cloud-play/session/init').body<typeof cloudSessionTokenInput>().reply<typeof cloudInitReplySchema>(),
    connect: post('/cloud-play/session/connect').body<typeof cloudConnectInput>().reply<Ok>(),
    state: get('/cloud-play/session').query<typeof cloudSessionTokenInput>().reply<typeof cloudSessionStateSchema>(),
    stop: post('/cloud-play/session/stop').body<typeof cloudSessionTokenInput>().reply<Ok>(),
    /** The host agent's heartbeat and long poll (machine token as bearer). */
    provide: post('/cloud-play/machine/provide').body<typeof machineProvideInput>().reply<typeof machineProvideReplySchema>(),
    /** The host agent's signed URLs of a session's package ('-' for no branch or version). */
    access: get('/internal/access/projects/:project/branches/:branch/versions/:version/packages/:package').reply<typeof internalPackageAccessSchema>(),
  },
  jobs: {
    /** The jobs' states, in token order. */
    state: post('/jobs').body<typeof jobTokensInput>().readOnly().reply<ListOf<typeof jobStateSchema>>(),
    /** Server-sent `job_updated` events (src/shared/api/jobs.ts reads them). */
    events: get('/jobs').query<typeof jobStreamQuery>().stream(),
  },
  localApp: {
    /** The local app builds offered, one per platform whose file exists (no sign-in needed). */
    downloads: get('/local-app').reply<typeof localAppDownloadsSchema>(),
    /** The build of a platform of localAppPlatforms (call with `url`, or fetch the listing's url). */
    download: get('/local-app/:platform').stream(),
  },
  docs: {
    index: get('/documentation/:lang').reply<typeof docsPageSchema>(),
    page: get('/documentation/:lang/:page').reply<typeof docsPageSchema>(),
  },
} as const;
