import type { SignInProviderId } from '../../../../../shared/schemas/external-auth.ts';
import { signInProviderIds } from '../../../../../shared/schemas/external-auth.ts';
import type { SignInConfig } from '../../../../config.ts';
import { AppError } from '../../../../errors.ts';
import { providerTitles } from '../provider-errors.ts';
import { discordProvider } from './discord.ts';
import { githubProvider } from './github.ts';
import { gitlabProvider } from './gitlab.ts';
import { itchProvider } from './itch.ts';
import { steamProvider } from './steam.ts';
import { twitchProvider } from './twitch.ts';
import type { SignInProvider } from './types.ts';

const cache = new WeakMap<SignInConfig, Map<SignInProviderId, SignInProvider>>();

function providersOf(config: SignInConfig): Map<SignInProviderId, SignInProvider> {
  let providers = cache.get(config);
  if (!providers) {
    providers = new Map();
    if (config.steam) providers.set('steam', steamProvider(config.steam));
    if (config.github) providers.set('github', githubProvider(config.github));
    if (config.gitlab) providers.set('gitlab', gitlabProvider(config.gitlab));
    if (config.itch) providers.set('itch', itchProvider(config.itch));
    if (config.twitch) providers.set('twitch', twitchProvider(config.twitch));
    if (config.discord) providers.set('discord', discordProvider(config.discord));
    cache.set(config, providers);
  }
  return providers;
}

/** The providers this instance offers for linking, in the spec's order (GET /instance linkProviders). */
export function configuredProviderIds(config: SignInConfig): SignInProviderId[] {
  const providers = providersOf(config);
  return signInProviderIds.filter((id) => providers.has(id));
}

/** Those of them that also sign in and register (GET /instance signInProviders): not itch.io. */
export function signInProviderIdsOf(config: SignInConfig): SignInProviderId[] {
  const providers = providersOf(config);
  return configuredProviderIds(config).filter((id) => providers.get(id)!.signsIn);
}

/** A provider that only links (signsIn false) refuses to sign in or register anyone: wrong_provider link_only. */
export function assertSignsIn(provider: SignInProvider): void {
  if (provider.signsIn) return;
  throw new AppError('wrong_provider', `${providerTitles[provider.id]} can only be linked to an account here, not used to sign in or register`, {
    provider: provider.id,
    reason: 'link_only',
  });
}

/** A provider the configuration leaves out is not_supported (not a bad parameter: the id is valid). */
export function providerOf(config: SignInConfig, id: SignInProviderId): SignInProvider {
  const provider = providersOf(config).get(id);
  if (!provider) throw new AppError('not_supported', `Sign-in with ${providerTitles[id]} is not configured on this instance`, { provider: id });
  return provider;
}
