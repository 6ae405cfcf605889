import type { ReactNode } from 'react';
import { signInProviders } from '../lib/app-info.ts';

/**
 * The brand mark of a sign-in provider, drawn inline (no request, nothing from the providers' sites):
 * simple official-style shapes in the brand colours (tokens.css, --brand-*: GitHub and Steam turn light
 * in the dark theme, as their guidelines show them on dark backgrounds). Decorative: the provider's name
 * is always written next to it. 'password' gets a key; an unknown provider nothing.
 */
export function ProviderMark({ provider, className }: { provider: string; className?: string }) {
  const shapes = marks[provider];
  if (!shapes) return null;
  return (
    <svg className={`provider_mark provider_mark_${provider}${className ? ` ${className}` : ''}`} viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      {shapes}
    </svg>
  );
}

/** The display name of a provider id ('GitHub'); the id itself when unknown. */
export function providerName(provider: string): string {
  return signInProviders.find((known) => known.id === provider)?.name ?? provider;
}

const marks: Record<string, ReactNode> = {
  // The Steam round badge: a large wheel linked to a small one by a piston.
  steam: (
    <>
      <circle className="mark_fill" cx="12" cy="12" r="11" />
      <path className="mark_glyph_stroke" d="M7.6 16.4 13.4 10.6" strokeWidth="2.2" strokeLinecap="round" />
      <circle className="mark_glyph_stroke" cx="15.4" cy="8.6" r="2.9" strokeWidth="1.6" />
      <circle className="mark_glyph" cx="15.4" cy="8.6" r="1.3" />
      <circle className="mark_glyph" cx="7.6" cy="16.4" r="2.4" />
    </>
  ),
  // The Octocat silhouette (GitHub's mark), drawn on a 16-unit grid.
  github: (
    <path
      className="mark_fill"
      transform="scale(1.5)"
      fillRule="evenodd"
      d="M8 0C3.58 0 0 3.58 0 8c0 3.54 2.29 6.53 5.47 7.59.4.07.55-.17.55-.38 0-.19-.01-.82-.01-1.49-2.01.37-2.53-.49-2.69-.94-.09-.23-.48-.94-.82-1.13-.28-.15-.68-.52-.01-.53.63-.01 1.08.58 1.23.82.72 1.21 1.87.87 2.33.66.07-.52.28-.87.51-1.07-1.78-.2-3.64-.89-3.64-3.95 0-.87.31-1.59.82-2.15-.08-.2-.36-1.02.08-2.12 0 0 .67-.21 2.2.82.64-.18 1.32-.27 2-.27.68 0 1.36.09 2 .27 1.53-1.04 2.2-.82 2.2-.82.44 1.1.16 1.92.08 2.12.51.56.82 1.27.82 2.15 0 3.07-1.87 3.75-3.65 3.95.29.25.54.73.54 1.48 0 1.07-.01 1.93-.01 2.2 0 .21.15.46.55.38A8.01 8.01 0 0 0 16 8c0-4.42-3.58-8-8-8z"
    />
  ),
  // The tanuki: two ears, a pointed chin, the darker nose triangle and lighter cheeks.
  gitlab: (
    <>
      <path className="mark_fill" d="M12 22 1.4 14.2a.9.9 0 0 1-.3-1L4.3 2.9a.5.5 0 0 1 .95 0L8 9.3h8l2.75-6.4a.5.5 0 0 1 .95 0l3.2 10.3a.9.9 0 0 1-.3 1z" />
      <path className="mark_fill_dark" d="M12 22 8 9.3h8z" />
      <path className="mark_fill_light" d="M1.1 13.2 8 9.3 12 22 1.4 14.2a.9.9 0 0 1-.3-1zM22.9 13.2 16 9.3 12 22l10.6-7.8a.9.9 0 0 0 .3-1z" />
    </>
  ),
  // The itch.io shop front: a scalloped awning over a counter with a gamepad window.
  itch: (
    <>
      <path className="mark_fill" d="M3.2 2.5h17.6L23 7.2v1.3a2.2 2.2 0 0 1-4.4 0 2.2 2.2 0 0 1-4.4 0 2.2 2.2 0 0 1-4.4 0 2.2 2.2 0 0 1-4.4 0 2.2 2.2 0 0 1-4.4 0V7.2z" />
      <path className="mark_fill" d="M2.7 11.6h18.6l-.5 8.2c-.1 1-.9 1.7-1.9 1.7H5.1c-1 0-1.8-.7-1.9-1.7z" />
      <rect className="mark_glyph" x="6.2" y="14" width="11.6" height="5.2" rx="2.6" />
      <path className="mark_fill" d="M8.3 15.6h1v.6h.6v1h-.6v.6h-1v-.6h-.6v-1h.6z" />
      <circle className="mark_fill" cx="15.3" cy="16.6" r=".9" />
    </>
  ),
  // Twitch's glitch: a speech bubble with a cut corner and two eyes.
  twitch: (
    <>
      <path className="mark_fill" d="M5.3 1.5 2 5v15.5h5.3v2.9h2.9l2.9-2.9h4.2L22 14.7V1.5z" />
      <path className="mark_glyph" d="M4.7 4.2h14.6v9.5l-3 3h-4.2l-2.9 2.8v-2.8H4.7z" />
      <path className="mark_fill" d="M10.1 6.9h2v5.5h-2zM15.4 6.9h2v5.5h-2z" />
    </>
  ),
  // Discord's Clyde: the rounded controller-shaped face with two eyes.
  discord: (
    <>
      <path
        className="mark_fill"
        d="M20.3 4.4A19.6 19.6 0 0 0 15.4 2.9l-.6 1.3a18.3 18.3 0 0 0-5.6 0l-.6-1.3a19.6 19.6 0 0 0-4.9 1.5C.6 9 0 13.6.3 18.1a19.8 19.8 0 0 0 6 3l1.3-2.1c-.7-.3-1.4-.6-2-1l.5-.4a14 14 0 0 0 11.8 0l.5.4c-.6.4-1.3.7-2 1l1.3 2.1a19.8 19.8 0 0 0 6-3c.4-5.2-.7-9.7-3.4-13.7z"
      />
      <ellipse className="mark_glyph" cx="8.4" cy="13.4" rx="2" ry="2.2" />
      <ellipse className="mark_glyph" cx="15.6" cy="13.4" rx="2" ry="2.2" />
    </>
  ),
  // A password sign-in: a key, in the text colour.
  password: (
    <>
      <circle className="mark_line" cx="7.5" cy="14.5" r="4.5" strokeWidth="2" />
      <path className="mark_line" d="m10.7 11.3 9.8-9.8M17 5l2.5 2.5M14.5 7.5 16.5 9.5" strokeWidth="2" strokeLinecap="round" />
    </>
  ),
};
