import { createContext, Fragment, useContext, useMemo, useState, useSyncExternalStore, type ReactNode } from 'react';
import { ensureLanguageInitialized, getLanguage, setLanguage, subscribeLanguage } from './store.ts';
import { getLanguageInfo, languages, type Language, type LanguageCode } from '../../../shared/i18n/languages.ts';

export type LanguageContextValue = {
  /** The current language's code, e.g. 'pt-BR'. */
  language: LanguageCode;
  /** The current language's row: languageName, dir, fallback. */
  info: Language;
  /** Shorthand for info.dir. */
  dir: Language['dir'];
  /** Stores and applies a language; false for an unknown code. */
  setLanguage: (code: string) => boolean;
  /** Every language, for a switcher. */
  languages: readonly Language[];
};

const LanguageContext = createContext<LanguageContextValue | null>(null);

function subscribe(onChange: () => void): () => void {
  return subscribeLanguage(onChange);
}

/**
 * Provides useLanguage() and re-renders the whole tree when the language changes. Paraglide messages
 * are plain function calls that read the current locale, so a component shows new text only when it
 * renders again; by default the subtree is remounted under a key (memoised components and lazy routes
 * included; state held outside React, such as the query cache and the URL, survives). Pass
 * remount={false} to keep component state, when every component showing text re-renders on its own.
 */
export function LanguageProvider({ children, remount = true }: { children: ReactNode; remount?: boolean }) {
  // Runs the detection on first use when main.tsx did not call initLanguage() itself.
  useState(ensureLanguageInitialized);
  const language = useSyncExternalStore(subscribe, getLanguage, getLanguage);
  const value = useMemo<LanguageContextValue>(() => {
    const info = getLanguageInfo(language);
    return { language, info, dir: info.dir, setLanguage, languages };
  }, [language]);
  return (
    <LanguageContext.Provider value={value}>
      {remount ? <Fragment key={language}>{children}</Fragment> : children}
    </LanguageContext.Provider>
  );
}

/** The current language and the way to change it; needs a LanguageProvider above. */
export function useLanguage(): LanguageContextValue {
  const value = useContext(LanguageContext);
  if (!value) throw new Error('useLanguage() needs a <LanguageProvider> above it');
  return value;
}
