import { useDom } from './setup.ts';
import { describe, expect, test } from 'bun:test';

useDom();
const theme = await import('../../src/client/lib/theme/theme.ts');

/** A prefers-color-scheme query the test can flip, as the system setting would. */
function fakeSystemScheme(initiallyDark: boolean) {
  let dark = initiallyDark;
  const listeners = new Set<() => void>();
  const query = {
    get matches() {
      return dark;
    },
    addEventListener: (_type: string, listener: () => void) => listeners.add(listener),
    removeEventListener: (_type: string, listener: () => void) => listeners.delete(listener),
  };
  (globalThis as unknown as { matchMedia: unknown }).matchMedia = () => query;
  return {
    set(nextDark: boolean) {
      dark = nextDark;
      for (const listener of listeners) listener();
    },
  };
}

describe('theme', () => {
  test('light, dark and system are kept; anything else falls back to system', () => {
    for (const stored of ['light', 'dark', 'system']) {
      localStorage.setItem('theme', stored);
      expect(theme.readStoredTheme()).toBe(stored as 'light');
    }
    for (const stored of ['', 'Dark', 'blue', '{}']) {
      localStorage.setItem('theme', stored);
      expect(theme.readStoredTheme()).toBe('system');
    }
    localStorage.removeItem('theme');
    expect(theme.readStoredTheme()).toBe('system');
  });

  test('setTheme stores the choice and sets data-theme', () => {
    fakeSystemScheme(false);
    theme.setTheme('dark');
    expect(localStorage.getItem('theme')).toBe('dark');
    expect(document.documentElement.dataset.theme).toBe('dark');
    theme.setTheme('light');
    expect(document.documentElement.dataset.theme).toBe('light');
  });

  test('system follows prefers-color-scheme live, and only while system is chosen', () => {
    const system = fakeSystemScheme(false);
    theme.watchSystemTheme();
    theme.setTheme('system');
    expect(document.documentElement.dataset.theme).toBe('light');
    system.set(true);
    expect(document.documentElement.dataset.theme).toBe('dark');
    system.set(false);
    expect(document.documentElement.dataset.theme).toBe('light');
    theme.setTheme('dark');
    system.set(false);
    expect(document.documentElement.dataset.theme).toBe('dark');
  });
});
