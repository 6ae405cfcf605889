import { useSyncExternalStore } from 'react';

/** Spec §4: light, dark or system (follows prefers-color-scheme), stored under localStorage 'theme'. */
export const themeChoices = ['light', 'dark', 'system'] as const;
export type ThemeChoice = (typeof themeChoices)[number];
const defaultTheme: ThemeChoice = 'system';
const themeStorageKey = 'theme';

const listeners = new Set<() => void>();

/** An unknown or missing stored value falls back to the default. */
export function readStoredTheme(): ThemeChoice {
  let stored: string | null = null;
  try {
    stored = localStorage.getItem(themeStorageKey);
  } catch {
    // storage blocked: use the default
  }
  return (themeChoices as readonly string[]).includes(stored ?? '') ? (stored as ThemeChoice) : defaultTheme;
}

function systemPrefersDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
}

function resolveTheme(choice: ThemeChoice): 'light' | 'dark' {
  if (choice === 'system') return systemPrefersDark() ? 'dark' : 'light';
  return choice;
}

/** Sets data-theme on <html> (the stylesheet keys on it); index.html's inline script does the same before first paint. */
export function applyTheme(choice: ThemeChoice = readStoredTheme()): void {
  document.documentElement.dataset.theme = resolveTheme(choice);
  document.documentElement.dataset.themeChoice = choice;
}

export function setTheme(choice: ThemeChoice): void {
  try {
    localStorage.setItem(themeStorageKey, choice);
  } catch {
    // storage blocked: applies to this page only
  }
  applyTheme(choice);
  for (const listener of listeners) listener();
}

let watching = false;

/** Follows the system setting live while the choice is 'system'. Idempotent. */
export function watchSystemTheme(): void {
  if (watching || typeof matchMedia !== 'function') return;
  watching = true;
  const query = matchMedia('(prefers-color-scheme: dark)');
  const onChange = () => {
    if (readStoredTheme() === 'system') applyTheme('system');
    for (const listener of listeners) listener();
  };
  query.addEventListener?.('change', onChange);
  // Another tab changed the stored theme.
  addEventListener('storage', (event: StorageEvent) => {
    if (event.key === themeStorageKey || event.key === null) onChange();
  });
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useTheme(): { choice: ThemeChoice; resolved: 'light' | 'dark'; setTheme: (choice: ThemeChoice) => void } {
  const choice = useSyncExternalStore(subscribe, readStoredTheme, () => defaultTheme);
  return { choice, resolved: resolveTheme(choice), setTheme };
}
