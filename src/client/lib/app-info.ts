/** The product name in page titles ('{title} - Cartridge'); not translated. */
export const appName = 'Cartridge';

/** Footer links to the project's community; brand names are not translated. */
export const socialLinks: readonly { name: string; href: string }[] = [
  { name: 'GitHub', href: 'https://github.com/cartridge-games/cartridge' },
  { name: 'Mastodon', href: 'https://mastodon.social/@cartridge' },
  { name: 'Discord', href: 'https://discord.gg/cartridge' },
];

/** Sign-in providers of spec §1 and §9, with their display names. */
export const signInProviders = [
  { id: 'steam', name: 'Steam' },
  { id: 'github', name: 'GitHub' },
  { id: 'gitlab', name: 'GitLab' },
  { id: 'itch', name: 'itch.io' },
  { id: 'twitch', name: 'Twitch' },
  { id: 'discord', name: 'Discord' },
] as const;
export type SignInProvider = (typeof signInProviders)[number]['id'];
