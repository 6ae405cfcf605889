import { useEffect, useId, useRef } from 'react';
import { language_current } from '../../shared/i18n/paraglide/messages/language_current.js';
import { theme_dark } from '../../shared/i18n/paraglide/messages/theme_dark.js';
import { theme_label } from '../../shared/i18n/paraglide/messages/theme_label.js';
import { theme_light } from '../../shared/i18n/paraglide/messages/theme_light.js';
import { theme_system } from '../../shared/i18n/paraglide/messages/theme_system.js';
import { useLanguage } from '../lib/i18n/index.ts';
import { themeChoices, useTheme, type ThemeChoice } from '../lib/theme/theme.ts';
import { Chevron, ThemeIcon } from './switcher-icons.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { language_current, theme_dark, theme_label, theme_light, theme_system };

/** Set while switching: the tree remounts in the new language, and focus should stay on the switcher. */
let refocusLanguageSwitcher = false;

/*
 * Both switchers are compact, so the header keeps room for the user's name in every language: a face
 * (the language code; the theme's icon) under a transparent native select of the same size. The select
 * stays the control: focus, keyboard, the open list (full names) and what screen readers announce are
 * the browser's own.
 */

/** Spec §2: a dropdown showing the current language code; its name says the language in full. */
export function LanguageSwitcher() {
  const { language, info, languages, setLanguage } = useLanguage();
  const id = useId();
  const ref = useRef<HTMLSelectElement>(null);
  useEffect(() => {
    if (!refocusLanguageSwitcher) return;
    refocusLanguageSwitcher = false;
    ref.current?.focus();
  }, []);
  const name = m.language_current({ language: info.languageName });
  return (
    <div className="switcher switcher_compact">
      <label htmlFor={id} className="visually_hidden">
        {name}
      </label>
      <span className="switcher_face" aria-hidden="true">
        <span className="switcher_code">{language}</span>
        <Chevron />
      </span>
      <select
        id={id}
        ref={ref}
        className="select switcher_select select_language"
        value={language}
        onChange={(event) => {
          refocusLanguageSwitcher = true;
          setLanguage(event.target.value);
        }}
        title={name}
      >
        {languages.map((option) => (
          <option key={option.code} value={option.code} lang={option.code} dir={option.dir}>
            {`${option.code} · ${option.languageName}`}
          </option>
        ))}
      </select>
    </div>
  );
}

const themeLabels: Record<ThemeChoice, () => string> = { light: m.theme_light, dark: m.theme_dark, system: m.theme_system };

/** The theme: the chosen one's icon; the select's name is "Theme", its value the choice. */
export function ThemeSwitcher() {
  const { choice, setTheme } = useTheme();
  const id = useId();
  return (
    <div className="switcher switcher_compact">
      <label htmlFor={id} className="visually_hidden">
        {m.theme_label()}
      </label>
      <span className="switcher_face" aria-hidden="true">
        <ThemeIcon theme={choice} />
        <Chevron />
      </span>
      <select id={id} className="select switcher_select" value={choice} onChange={(event) => setTheme(event.target.value as ThemeChoice)} title={m.theme_label()}>
        {themeChoices.map((theme) => (
          <option key={theme} value={theme}>
            {themeLabels[theme]()}
          </option>
        ))}
      </select>
    </div>
  );
}
