/**
 * Merges translations into locales/{code}.json without clobbering: reads JSON files shaped
 * { "de": { "key": "text", ... }, "fr": { ... } } (or { "key": "text" } with --locale CODE), sets those
 * keys, keeps every other existing key, drops keys en.json no longer has (--keep-extra keeps them), and
 * writes the keys in en.json's order. Never writes en.json.
 *
 *   bun src/tools/i18n-merge.ts translations.json [more.json ...] [--locale CODE] [--keep-extra]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { languageCodes } from '../shared/i18n/languages.ts';
import { localesDir } from './i18n-compile.ts';

const schema = 'https://inlang.com/schema/inlang-message-format';

export function mergeLocale(code: string, translations: Record<string, string>, options: { keepExtra?: boolean } = {}): { set: number; dropped: string[] } {
  if (code === 'en') throw new Error('en.json is the source: edit it by hand');
  if (!(languageCodes as readonly string[]).includes(code)) throw new Error(`unknown locale ${code}`);
  const english = JSON.parse(readFileSync(join(localesDir, 'en.json'), 'utf8')) as Record<string, string>;
  const file = join(localesDir, `${code}.json`);
  const existing = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
  const merged: Record<string, string> = { ...existing, ...translations };
  const out: Record<string, string> = { $schema: schema };
  for (const key of Object.keys(english)) {
    if (key !== '$schema' && merged[key] !== undefined) out[key] = merged[key];
  }
  const dropped = Object.keys(merged).filter((key) => key !== '$schema' && !(key in english));
  if (options.keepExtra) for (const key of dropped) out[key] = merged[key]!;
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  return { set: Object.keys(translations).filter((key) => key in english).length, dropped: options.keepExtra ? [] : dropped };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const localeIndex = args.indexOf('--locale');
  const onlyLocale = localeIndex >= 0 ? args[localeIndex + 1] : undefined;
  const keepExtra = args.includes('--keep-extra');
  const files = args.filter((arg, index) => !arg.startsWith('--') && (localeIndex < 0 || index !== localeIndex + 1));
  for (const path of files) {
    const json = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    const byLocale = (onlyLocale ? { [onlyLocale]: json } : json) as Record<string, Record<string, string>>;
    for (const [code, translations] of Object.entries(byLocale)) {
      const { set, dropped } = mergeLocale(code, translations, { keepExtra });
      console.log(`${code}: set ${set} keys${dropped.length ? `, dropped ${dropped.join(' ')}` : ''}`);
    }
  }
}
