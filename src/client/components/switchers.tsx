import { useEffect, useId, useRef } from 'react';
import { language_label } from '../paraglide/messages/language_label.js';
import { theme_dark } from '../paraglide/messages/theme_dark.js';
import { theme_label } from '../paraglide/messages/theme_label.js';
import { theme_light } from '../paraglide/messages/theme_light.js';
import { theme_system } from '../paraglide/messages/theme_system.js';
import { useLanguage } from '../lib/i18n/index.ts';
import { themeChoices, useTheme, type ThemeChoice } from '../lib/theme/theme.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { language_label, theme_dark, theme_label, theme_light, theme_system };

/** Set while switching: the tree remounts in the new language, and focus should stay on the switcher. */
let refocusLanguageSwitcher = false;

/** Spec §2: a dropdown showing the current language code. */
export function LanguageSwitcher() {
  const { language, languages, setLanguage } = useLanguage();
  const id = useId();
  const ref = useRef<HTMLSelectElement>(null);
  useEffect(() => {
    if (!refocusLanguageSwitcher) return;
    refocusLanguageSwitcher = false;
    ref.current?.focus();
  }, []);
  return (
    <div className="switcher">
      <label htmlFor={id} className="visually_hidden">
        {m.language_label()}
      </label>
      <select
        id={id}
        ref={ref}
        className="select select_language"
        value={language}
        onChange={(event) => {
          refocusLanguageSwitcher = true;
          setLanguage(event.target.value);
        }}
        title={m.language_label()}
      >
        {languages.map((info) => (
          <option key={info.code} value={info.code} lang={info.code} dir={info.dir}>
            {`${info.code} · ${info.languageName}`}
          </option>
        ))}
      </select>
    </div>
  );
}

const themeLabels: Record<ThemeChoice, () => string> = { light: m.theme_light, dark: m.theme_dark, system: m.theme_system };

export function ThemeSwitcher() {
  const { choice, setTheme } = useTheme();
  const id = useId();
  return (
    <div className="switcher">
      <label htmlFor={id} className="visually_hidden">
        {m.theme_label()}
      </label>
      <select id={id} className="select" value={choice} onChange={(event) => setTheme(event.target.value as ThemeChoice)} title={m.theme_label()}>
        {themeChoices.map((theme) => (
          <option key={theme} value={theme}>
            {themeLabels[theme]()}
          </option>
        ))}
      </select>
    </div>
  );
}
