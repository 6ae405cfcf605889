/** The product name until the instance's APP_NAME has loaded (lib/instance.ts); not translated. */
export const appName = 'Cartridge';

/** Sign-in providers of spec §1 and §9, with their display names. */
export const signInProviders = [
  { id: 'steam', name: 'Steam' },
  { id: 'github', name: 'GitHub' },
  { id: 'gitlab', name: 'GitLab' },
  { id: 'itch', name: 'itch.io' },
  { id: 'twitch', name: 'Twitch' },
  { id: 'discord', name: 'Discord' },
] as const;
export type SignInProviderInfo = (typeof signInProviders)[number];
