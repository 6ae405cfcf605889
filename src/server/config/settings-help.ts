import { settingDocOf } from './setting.ts';
import { settings } from './settings.ts';

/** Every environment variable Cartridge reads, with its default and meaning (README and --help). */
export const configVariables: readonly (readonly [name: string, shown: string, meaning: string])[] = Object.entries(settings).map(([name, schema]) => {
  const { shown, doc } = settingDocOf(name, schema);
  return [name, shown, doc] as const;
});

/** The names of every variable loadConfig reads (the README's settings table must list each: tests/unit/readme.test.ts). */
export const readVariableNames: readonly string[] = Object.keys(settings);

/** Variables whose value is never echoed in a configuration error. */
export const secretVariables: ReadonlySet<string> = new Set(Object.entries(settings).filter(([name, schema]) => settingDocOf(name, schema).secret).map(([name]) => name));

/** The environment variables part of `cartridge --help` (commands/help.ts). */
export function formatConfigHelp(): string {
  const width = Math.max(...configVariables.map(([name]) => name.length));
  const lines = configVariables.map(([name, fallback, meaning]) => `  ${name.padEnd(width)}  ${meaning} (default: ${fallback})`);
  return `Environment variables:\n${lines.join('\n')}\n`;
}
