import type { FakeIdentity, FakeProviderId, FakeRequest } from './common.ts';
import { startFakeDiscord } from './discord.ts';
import { startFakeGithub } from './github.ts';
import { startFakeGitlab } from './gitlab.ts';
import { startFakeItch, type ItchKnobs } from './itch.ts';
import { startFakeSteam, type SteamKnobs } from './steam.ts';
import { startFakeTwitch } from './twitch.ts';

export type { FakeProviderId } from './common.ts';

/**
 * The six sign-in providers as small loopback servers speaking each real protocol (tests never reach
 * the internet). Authorization endpoints approve at once with a 302, so a test's fetch (redirect:
 * 'manual') or a real browser follows them alike.
 */
export type FakeProviders = {
  /** Every provider variable of the server's configuration, pointing at the fakes (with client ids and secrets). */
  env: Record<string, string>;
  /** Each fake's origin. */
  origins: Record<FakeProviderId, string>;
  /** The account the provider's next authorization approves (until called again). */
  signInAs(provider: FakeProviderId, identity: FakeIdentity): void;
  /** Tamper switches, read on every request: set them, and put them back. */
  knobs: { steam: SteamKnobs; itch: ItchKnobs };
  /** Every request the fakes received, oldest first. */
  requests: FakeRequest[];
  close(): Promise<void>;
};

const client = (provider: string) => ({ clientId: `${provider}-client-id`, clientSecret: `${provider}-client-secret-${crypto.randomUUID()}` });

export async function startFakeProviders(): Promise<FakeProviders> {
  const requests: FakeRequest[] = [];
  const identities = new Map<FakeProviderId, FakeIdentity>();
  const knobs = { steam: { isValid: true, claimedId: undefined } as SteamKnobs, itch: { refuseTokens: false } };
  const origins = {} as Record<FakeProviderId, string>;
  const contextOf = (provider: FakeProviderId) => ({
    provider,
    get origin() {
      return origins[provider];
    },
    identity: () => identities.get(provider) ?? { id: provider === 'steam' ? '76561197960287930' : '1000', login: `${provider}-user` },
    log: (request: FakeRequest) => void requests.push(request),
  });
  const clients = { github: client('github'), gitlab: client('gitlab'), twitch: client('twitch'), discord: client('discord') };
  const itchClientId = 'itch-client-id';
  const steamWebApiKey = `steam-key-${crypto.randomUUID()}`;
  const servers = {
    github: startFakeGithub(contextOf('github'), clients.github),
    gitlab: startFakeGitlab(contextOf('gitlab'), clients.gitlab),
    twitch: startFakeTwitch(contextOf('twitch'), clients.twitch),
    discord: startFakeDiscord(contextOf('discord'), clients.discord),
    itch: startFakeItch(contextOf('itch'), itchClientId, knobs.itch),
    steam: startFakeSteam(contextOf('steam'), steamWebApiKey, knobs.steam),
  };
  for (const [provider, server] of Object.entries(servers)) origins[provider as FakeProviderId] = server.url.origin;

  const env = {
    GITHUB_CLIENT_ID: clients.github.clientId,
    GITHUB_CLIENT_SECRET: clients.github.clientSecret,
    GITHUB_URL: origins.github,
    GITHUB_API_URL: `${origins.github}/api`,
    GITLAB_CLIENT_ID: clients.gitlab.clientId,
    GITLAB_CLIENT_SECRET: clients.gitlab.clientSecret,
    GITLAB_URL: `${origins.gitlab}/gitlab`,
    TWITCH_CLIENT_ID: clients.twitch.clientId,
    TWITCH_CLIENT_SECRET: clients.twitch.clientSecret,
    TWITCH_AUTH_URL: origins.twitch,
    TWITCH_API_URL: `${origins.twitch}/api`,
    DISCORD_CLIENT_ID: clients.discord.clientId,
    DISCORD_CLIENT_SECRET: clients.discord.clientSecret,
    DISCORD_URL: origins.discord,
    ITCH_CLIENT_ID: itchClientId,
    ITCH_URL: origins.itch,
    ITCH_API_URL: `${origins.itch}/api`,
    STEAM_SIGN_IN: 'true',
    STEAM_OPENID_URL: `${origins.steam}/openid/login`,
    STEAM_WEB_API_KEY: steamWebApiKey,
    STEAM_API_URL: `${origins.steam}/api`,
  };

  return {
    env,
    origins,
    signInAs: (provider, identity) => void identities.set(provider, identity),
    knobs,
    requests,
    async close() {
      await Promise.all(Object.values(servers).map((server) => server.stop(true)));
    },
  };
}
