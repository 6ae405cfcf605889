import type { SignInProviderId } from '../../../../../shared/schemas/external-auth.ts';
import { signInProviderIds } from '../../../../../shared/schemas/external-auth.ts';
import type { SignInConfig } from '../../../../config.ts';
import { AppError, refusal } from '../../../../errors.ts';
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

/**
 * Providers whose tokens cannot be checked to be issued to this server's client (itch.io: see
 * providers/itch.ts): anyone holding such a token of another application would sign in as its owner,
 * so they only link an account to a signed-in user, shown on profiles and store pages. The others
 * are bound to this server (a code redeemed with its client secret or PKCE verifier, a Steam
 * assertion for its return address).
 */
const linkOnlyProviderIds: ReadonlySet<string> = new Set<SignInProviderId>(['itch']);

/** Whether a credential of this provider ('password' included) is a way to sign in. */
export function signsIn(provider: string): boolean {
  return !linkOnlyProviderIds.has(provider);
}

/** Those of the configured providers that also sign in and register (GET /instance signInProviders): not itch.io. */
export function signInProviderIdsOf(config: SignInConfig): SignInProviderId[] {
  return configuredProviderIds(config).filter(signsIn);
}

/** A provider that only links refuses to sign in or register anyone: wrong_provider link_only. */
export function assertSignsIn(provider: SignInProviderId): void {
  if (signsIn(provider)) return;
  throw refusal('wrong_provider', `${providerTitles[provider]} can only be linked to an account here, not used to sign in or register`, 'link_only', { provider });
}

/** A provider the configuration leaves out is not_supported (not a bad parameter: the id is valid). */
export function providerOf(config: SignInConfig, id: SignInProviderId): SignInProvider {
  const provider = providersOf(config).get(id);
  if (!provider) throw new AppError('not_supported', `Sign-in with ${providerTitles[id]} is not configured on this instance`, { provider: id });
  return provider;
}
