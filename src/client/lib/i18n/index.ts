/**
 * Languages of the web client (spec §1, §3 language dictionary, §4 language).
 *
 * Messages: `import { m } from '<relative path>/paraglide/messages.js'` (src/shared/i18n/paraglide, compiled
 * from locales/{code}.json by `npm run i18n`; generated, never edited), then `m.home_title()` or
 * `m.home_welcome({ name })`. Each message is its own module, so a bundle holds only what it calls.
 *
 * This module decides which language those messages speak:
 *
 *   initLanguage()            once before the first render: the address's `?lang=` if it names one
 *                             of ours (not stored), else localStorage `lang` if valid, else the
 *                             browser's languages (exact code, zh-TW/HK → zh-Hant, zh-CN/SG → zh-Hans,
 *                             then the 2-letter prefix), else en. Sets paraglide's locale and
 *                             `<html lang dir>`; does not store anything.
 *   setLanguage(code)         the user's choice: stores it under `lang`, applies it, notifies; returns
 *                             false for an unknown code.
 *   getLanguage()             the current code.
 *   subscribeLanguage(fn)     change notifications outside React; returns the unsubscribe function.
 *   ensureLanguageInitialized() initLanguage() unless already done (the provider calls it itself).
 *   <LanguageProvider>        wrap the app in it: re-renders (by default remounts) the tree on change.
 *   useLanguage()             { language, info, dir, setLanguage, languages } inside the provider.
 *   languages                 the typed table: code, languageName (in its own language), dir, fallback.
 *   findLanguage(code)        a row by code (case-insensitive), or undefined.
 *   getLanguageInfo(code)     a row by known code.
 *   getFallbackChain(code)    e.g. pt-BR → ['pt-BR', 'pt', 'en'] (paraglide falls back the same way).
 *   detectLanguage(input)     the pure detection rule, for tests and the server.
 *
 * Typical start (main.tsx):
 *   initLanguage();
 *   createRoot(root).render(<LanguageProvider><App /></LanguageProvider>);
 * A switcher: const { language, setLanguage, languages } = useLanguage();
 */
export {
  findLanguage,
  languageCodes,
} from '../../../shared/i18n/languages.ts';
export {
  getLanguage,
  initLanguage,
  requestedLanguage,
  setLanguage,
  subscribeLanguage,
} from './store.ts';
export { LanguageProvider, useLanguage } from './react.tsx';
