import { z } from 'zod';
import { recordIdSchema, singleLineText } from './text.ts';

/**
 * Deploying to external storefronts (spec §3 Deploy credential, Deploy site, Available site; §5 rules).
 * A deploy credential's key goes in (POST) and never comes out again: no reply schema has a key field.
 */

/** Spec §9: the storefronts a version can be deployed to. */
export const deployProviderNames = ['steam', 'itch'] as const;
export type DeployProvider = (typeof deployProviderNames)[number];
export const deployProviderSchema = z.enum(deployProviderNames);

const deployCredentialIdSchema = recordIdSchema;
const deploySiteIdSchema = recordIdSchema;

/** Spec §5: an itch.io API key is exactly 40 letters and digits (the Add button stays disabled otherwise). */
const itchKeyPattern = /^[A-Za-z0-9]{40}$/;

export function isValidDeployKey(provider: DeployProvider, key: string): boolean {
  return provider === 'itch' ? itchKeyPattern.test(key) : /^[\x21-\x7E]{1,512}$/.test(key);
}

const deployCredentialTitleSchema = singleLineText(0, 64);

/**
 * POST /users/me/deploy-credentials. An empty or absent title becomes 'Key {n}'. The key's own rule
 * depends on the provider; a refusal names `key` and never repeats the key.
 */
export const createDeployCredentialInput = z
  .object({
    title: deployCredentialTitleSchema.optional(),
    provider: deployProviderSchema,
    key: z.string().max(512),
  })
  .superRefine((input, context) => {
    if (!isValidDeployKey(input.provider, input.key)) {
      context.addIssue({ code: 'custom', path: ['key'], message: input.provider === 'itch' ? 'must be exactly 40 letters and digits' : 'not a key' });
    }
  });

/** A deploy site as its credential's owner sees it under the credential (the delete confirmation names them). */
const credentialSiteSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  projectTitle: z.string(),
  site: z.string(),
});

export const deployCredentialSchema = z.object({
  id: z.string(),
  title: z.string(),
  provider: deployProviderSchema,
  created: z.string(),
  /** The deploy sites using this credential, in every project: deleting the credential removes them. */
  sites: z.array(credentialSiteSchema),
});
export type DeployCredential = z.infer<typeof deployCredentialSchema>;

/** DELETE /users/me/deploy-credentials/{id}: the deploy sites that went with it. */
export const deletedDeployCredentialSchema = z.object({ ok: z.boolean(), deletedSites: z.array(credentialSiteSchema) });
export type DeletedDeployCredential = z.infer<typeof deletedDeployCredentialSchema>;

/** GET .../{deploy-credential}/available-sites: the key's itch.io games; `site` is what POST deploy-sites takes. */
export const availableSiteSchema = z.object({
  id: z.string(),
  title: z.string(),
  pictureUrl: z.string().nullable(),
  site: z.string().nullable(),
});
export type AvailableSite = z.infer<typeof availableSiteSchema>;

/** POST /projects/{project}/deploy-sites: a credential of the caller's and an address (see parseDeploySiteAddress). */
export const createDeploySiteInput = z.object({
  credential: deployCredentialIdSchema,
  site: z.string().min(1).max(300),
});

/** What a deploy site is missing to take deploys now (shown before a deploy starts), or null. */
const deployProblemSchema = z.enum(['butler_missing', 'steam_not_supported']).nullable();
export type DeployProblem = z.infer<typeof deployProblemSchema>;

export const deploySiteSchema = z.object({
  id: z.string(),
  provider: deployProviderSchema,
  /** itch: 'developer/game'; steam: the numeric app id. */
  site: z.string(),
  credentialId: z.string(),
  credentialTitle: z.string(),
  /** Who owns the credential (a member may use only their own credentials to add sites). */
  credentialOwnerTitle: z.string(),
  created: z.string(),
  /** Why a deploy to this site cannot start on this server now (butler not installed; Steam), or null. */
  deployProblem: deployProblemSchema,
  /** The sentence that explains deployProblem (English; the client words it in its language), or null. */
  deployProblemMessage: z.string().nullable(),
});
export type DeploySite = z.infer<typeof deploySiteSchema>;

const slug = '[a-z0-9][a-z0-9_-]{0,99}';
const itchPageAddress = new RegExp(`^(?:https?://)?(${slug})\\.itch\\.io/(${slug})/?$`, 'i');
const itchShortAddress = new RegExp(`^(${slug})/(${slug})$`, 'i');
const steamStoreAddress = /^(?:https?:\/\/)?store\.steampowered\.com\/app\/(\d{1,10})(?:[/?#].*)?$/i;
const steamAppId = /^\d{1,10}$/;

/**
 * Spec §5 site address forms, or undefined (refused): itch `developer.itch.io/game` (with or without
 * https://, trailing slash) or `developer/game` → 'developer/game' (lower case, as itch.io names them);
 * Steam a store app address (`https://store.steampowered.com/app/123/...`) or a number → '123'.
 */
export function parseDeploySiteAddress(provider: DeployProvider, address: string): string | undefined {
  const text = address.trim();
  if (provider === 'itch') {
    const match = itchPageAddress.exec(text) ?? itchShortAddress.exec(text);
    return match ? `${match[1]!.toLowerCase()}/${match[2]!.toLowerCase()}` : undefined;
  }
  const digits = steamStoreAddress.exec(text)?.[1] ?? (steamAppId.test(text) ? text : undefined);
  if (digits === undefined) return undefined;
  const appId = Number(digits);
  return appId >= 1 && appId <= 0xffff_ffff ? String(appId) : undefined;
}

/**
 * An itch.io channel name: butler lowercases it; letters, digits, '-', '_' and '.' (itch shows it as
 * the build's platform label, so nothing that needs quoting).
 */
export const deployChannelSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'lower-case letters, digits, ".", "_" and "-"');

/**
 * Spec §5 itch channel: the tag values after the colon, sorted, joined with '-', or 'default' for a
 * package without tags ('os:linux', 'bits:64' -> '64-linux').
 */
export function defaultItchChannel(tags: readonly string[]): string {
  const values = tags
    .map((tag) => tag.slice(tag.indexOf(':') + 1).toLowerCase())
    .filter((value) => value.length > 0)
    .sort();
  return values.length > 0 ? values.join('-') : 'default';
}

/** Spec §5 refusals of a deploy, word for word (the dialog shows them before asking the server). */
export const noPackagesToDeployMessage = 'No packages to deploy.';
export function sharedChannelMessage(count: number, channel: string): string {
  return `Multiple packages cannot be deployed to a single channel. Currently ${count} packages are set to deploy to channel ${channel}.`;
}

/** The first channel given to two or more packages (in the order given), with how many; undefined when none is. */
export function findSharedChannel(entries: readonly { channel: string }[]): { channel: string; count: number } | undefined {
  const counts = new Map<string, number>();
  for (const entry of entries) counts.set(entry.channel, (counts.get(entry.channel) ?? 0) + 1);
  for (const [channel, count] of counts) if (count > 1) return { channel, count };
  return undefined;
}

/**
 * POST /projects/{project}/versions/{version}/deploy {site, packages[{package, channel}]}: one job per
 * package. An empty list is refused with noPackagesToDeployMessage, a shared channel with
 * sharedChannelMessage (both bad_param, checked by the service so REST and tRPC say the same words).
 */
export const deployVersionInput = z.object({
  site: deploySiteIdSchema,
  packages: z.array(z.object({ package: recordIdSchema, channel: deployChannelSchema })).max(50),
});

/** A deploy job's stages while it runs (spec §4), after 'queued' and before 'succeeded' or 'errored'. */
const deployStageNames = ['downloading', 'unpacking', 'uploading'] as const;
export type DeployStage = (typeof deployStageNames)[number];

/** Spec §4 deploy job states, as the dialog shows them. */
const deployStateNames = ['queued', ...deployStageNames, 'succeeded', 'errored'] as const;
export type DeployState = (typeof deployStateNames)[number];

/** The spec §4 state of a deploy job from its queue status and stage. */
export function deployStateOf(status: 'queued' | 'running' | 'succeeded' | 'errored', stage: string | null): DeployState {
  if (status !== 'running') return status;
  return (deployStageNames as readonly string[]).includes(stage ?? '') ? (stage as DeployStage) : 'downloading';
}

/** A deploy job's output once it succeeded. */
export const deployOutputSchema = z.object({
  /** itch: 'developer/game:channel', as butler was given it. */
  target: z.string(),
  channel: z.string(),
  /** The storefront's build id (itch: the wharf build butler created), null if it did not say. */
  buildId: z.number().nullable(),
});
export type DeployOutput = z.infer<typeof deployOutputSchema>;

/** One deploy job: what it deploys where, and the token that follows it (GET /jobs, POST /jobs). */
export const deployJobSchema = z.object({
  job: z.string(),
  token: z.string(),
  package: z.string(),
  packageTitle: z.string(),
  versionId: z.string(),
  /** The deploy site's id and address at the time the deploy started (the site may be deleted since). */
  siteId: z.string(),
  site: z.string(),
  provider: deployProviderSchema,
  channel: z.string(),
  status: z.enum(['queued', 'running', 'succeeded', 'errored']),
  state: z.enum(deployStateNames),
  created: z.string(),
  /** Who started it (null when that account is gone). */
  startedBy: z.string().nullable(),
});
export type DeployJob = z.infer<typeof deployJobSchema>;

/** The reply of POST .../deploy: the jobs started, in the order of the request's packages. */
export const startedDeploySchema = z.object({ jobs: z.array(deployJobSchema) });
export type StartedDeploy = z.infer<typeof startedDeploySchema>;
