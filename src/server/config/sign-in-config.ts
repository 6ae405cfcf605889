import { ConfigError } from './config-error.ts';
import type { SettingValues } from './settings.ts';

/** Provider addresses have no trailing slash. Client secrets and keys are never logged or replied. */
export type SignInConfig = {
  github?: { clientId: string; clientSecret: string; url: string; apiUrl: string };
  gitlab?: { clientId: string; clientSecret: string; url: string };
  twitch?: { clientId: string; clientSecret: string; authUrl: string; apiUrl: string };
  discord?: { clientId: string; clientSecret: string; url: string };
  itch?: { clientId: string; url: string; apiUrl: string };
  steam?: { openidUrl: string; webApiKey: string | undefined; apiUrl: string };
};

/** A client id without its secret (or the reverse) is a mistake worth stopping for, not a provider left out. */
function clientPair(prefix: 'GITHUB' | 'GITLAB' | 'TWITCH' | 'DISCORD', values: SettingValues): { clientId: string; clientSecret: string } | undefined {
  const clientId = values[`${prefix}_CLIENT_ID`];
  const clientSecret = values[`${prefix}_CLIENT_SECRET`];
  if (!clientId && !clientSecret) return undefined;
  if (!clientId) throw new ConfigError(`Invalid ${prefix}_CLIENT_ID: must be set with ${prefix}_CLIENT_SECRET`);
  if (!clientSecret) throw new ConfigError(`Invalid ${prefix}_CLIENT_SECRET: must be set with ${prefix}_CLIENT_ID`);
  return { clientId, clientSecret };
}

/** The external sign-in providers this instance offers (spec §9); one absent is not offered. */
export function signInConfigOf(values: SettingValues): SignInConfig {
  const github = clientPair('GITHUB', values);
  const gitlab = clientPair('GITLAB', values);
  const twitch = clientPair('TWITCH', values);
  const discord = clientPair('DISCORD', values);
  return {
    ...(github && { github: { ...github, url: values.GITHUB_URL, apiUrl: values.GITHUB_API_URL } }),
    ...(gitlab && { gitlab: { ...gitlab, url: values.GITLAB_URL } }),
    ...(twitch && { twitch: { ...twitch, authUrl: values.TWITCH_AUTH_URL, apiUrl: values.TWITCH_API_URL } }),
    ...(discord && { discord: { ...discord, url: values.DISCORD_URL } }),
    ...(values.ITCH_CLIENT_ID && { itch: { clientId: values.ITCH_CLIENT_ID, url: values.ITCH_URL, apiUrl: values.ITCH_API_URL } }),
    ...(values.STEAM_SIGN_IN && { steam: { openidUrl: values.STEAM_OPENID_URL, webApiKey: values.STEAM_WEB_API_KEY, apiUrl: values.STEAM_API_URL } }),
  };
}
