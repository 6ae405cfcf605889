import type { DeployProvider } from '../../shared/schemas/deploy.ts';

/** Storefront names are brands: the same in every language. */
export const deployProviderLabels: Record<DeployProvider, string> = { itch: 'itch.io', steam: 'Steam' };

/** Where an itch.io user creates API keys that can push builds (docs/en/deploys.md). */
export const itchKeysPage = 'https://itch.io/user/settings/api-keys';
