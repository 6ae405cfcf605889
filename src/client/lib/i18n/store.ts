import { setLocale } from '../../../shared/i18n/paraglide/runtime.js';
import { detectLanguage } from '../../../shared/i18n/detect.ts';
import { baseLanguage, findLanguage, getLanguageInfo, type LanguageCode } from '../../../shared/i18n/languages.ts';

/** localStorage key of the chosen language (spec §4). */
const languageStorageKey = 'lang';

let current: LanguageCode = baseLanguage;
let initialized = false;
const listeners = new Set<(language: LanguageCode) => void>();

function readStoredLanguage(): string | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage.getItem(languageStorageKey);
  } catch {
    return null; // storage disabled (privacy modes, sandboxed frames)
  }
}

function writeStoredLanguage(code: LanguageCode): void {
  try {
    if (typeof localStorage !== 'undefined') localStorage.setItem(languageStorageKey, code);
  } catch {
    // The choice then lasts for this page only.
  }
}

/** Points paraglide's messages and `<html lang dir>` at `code`. */
function apply(code: LanguageCode): void {
  current = code;
  // Our strategy is ['globalVariable', 'baseLocale']: this sets the variable, never reloads.
  void setLocale(code, { reload: false });
  if (typeof document !== 'undefined') {
    document.documentElement.lang = code;
    document.documentElement.dir = getLanguageInfo(code).dir;
  }
}

/** The `lang` query parameter of the page's address (public pages link their languages as `?lang=de`). */
export function requestedLanguage(): string | null {
  try {
    return typeof location === 'undefined' ? null : new URLSearchParams(location.search).get(languageStorageKey);
  } catch {
    return null;
  }
}

/**
 * The address's `?lang=` changed to the user's choice (kept shareable and in step: a reload must not
 * bring back the language the address named before), without a navigation.
 */
function followChoiceInAddress(code: LanguageCode): void {
  try {
    if (typeof location === 'undefined' || typeof history === 'undefined') return;
    const url = new URL(location.href);
    if (!url.searchParams.has(languageStorageKey) || url.searchParams.get(languageStorageKey) === code) return;
    url.searchParams.set(languageStorageKey, code);
    history.replaceState(history.state, '', url);
  } catch {
    // Not in a page with an address (tests): nothing to follow.
  }
}

/** The language from the address, storage and the browser, in that order (see detectLanguage). */
function detectInitialLanguage(): LanguageCode {
  const browser = typeof navigator === 'undefined' ? undefined : navigator;
  return detectLanguage({
    requested: requestedLanguage(),
    stored: readStoredLanguage(),
    browserLanguages: browser?.languages,
    browserLanguage: browser?.language,
  });
}

/** Call once before the first render: applies the detected language without storing it (`?lang=` included). */
export function initLanguage(): LanguageCode {
  const code = detectInitialLanguage();
  initialized = true;
  apply(code);
  return code;
}

/** initLanguage() unless it (or setLanguage) already ran; the provider calls it on first render. */
export function ensureLanguageInitialized(): LanguageCode {
  return initialized ? current : initLanguage();
}

export function getLanguage(): LanguageCode {
  return current;
}

/**
 * The user's choice: stored under `lang`, handed to paraglide, set on `<html lang dir>`, announced to
 * subscribers (the React provider re-renders the tree). Unknown codes are ignored and return false.
 */
export function setLanguage(code: string): boolean {
  const language = findLanguage(code);
  if (!language) return false;
  writeStoredLanguage(language.code);
  followChoiceInAddress(language.code);
  initialized = true;
  const changed = language.code !== current;
  apply(language.code);
  if (changed) for (const listener of listeners) listener(language.code);
  return true;
}

/** Calls `listener` after each change of language; returns the unsubscribe function. */
export function subscribeLanguage(listener: (language: LanguageCode) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
