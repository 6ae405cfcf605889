import type { ReactNode } from 'react';
import type { ThemeChoice } from '../lib/theme/theme.ts';

/** Decorative icons of the compact switchers (the select beside them carries the name and the value). */
const themePaths: Record<ThemeChoice, ReactNode> = {
  light: (
    <>
      <circle cx="12" cy="12" r="4" />
      <path d="M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />
    </>
  ),
  dark: <path d="M20.5 14.5A8.5 8.5 0 1 1 9.5 3.5a7 7 0 0 0 11 11z" />,
  system: (
    <>
      <rect x="3" y="4" width="18" height="12" rx="2" />
      <path d="M8 20h8M12 16v4" />
    </>
  ),
};

export function ThemeIcon({ theme }: { theme: ThemeChoice }) {
  return (
    <svg className="switcher_icon" data-theme-icon={theme} viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      {themePaths[theme]}
    </svg>
  );
}

/** The dropdown's mark: the face opens a list. */
export function Chevron() {
  return (
    <svg className="switcher_chevron" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path d="M6 9l6 6 6-6" />
    </svg>
  );
}
