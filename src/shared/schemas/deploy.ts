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

export const deployCredentialIdSchema = recordIdSchema;
export const deploySiteIdSchema = recordIdSchema;

/** Spec §5: an itch.io API key is exactly 40 letters and digits (the Add button stays disabled otherwise). */
export const itchKeyPattern = /^[A-Za-z0-9]{40}$/;

export function isValidDeployKey(provider: DeployProvider, key: string): boolean {
  return provider === 'itch' ? itchKeyPattern.test(key) : /^[\x21-\x7E]{1,512}$/.test(key);
}

export const deployCredentialTitleSchema = singleLineText(0, 64);

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
export type CreateDeployCredentialInput = z.input<typeof createDeployCredentialInput>;

/** A deploy site as its credential's owner sees it under the credential (the delete confirmation names them). */
export const credentialSiteSchema = z.object({
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
export type CreateDeploySiteInput = z.input<typeof createDeploySiteInput>;

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
