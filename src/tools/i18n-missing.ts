/**
 * Prints, per locale, the keys of locales/en.json it lacks (and keys it has that en.json does not),
 * to drive translation work. `--json` prints { locale: { key: englishText } } of the missing keys,
 * ready to translate and feed to i18n-merge.ts.
 *
 *   bun src/tools/i18n-missing.ts [--json] [--locale de]
 */
import { languageCodes } from '../shared/i18n/languages.ts';
import { readLocale } from './i18n-check.ts';

export function findMissing(): Record<string, { missing: string[]; extra: string[] }> {
  const english = readLocale('en') ?? {};
  const result: Record<string, { missing: string[]; extra: string[] }> = {};
  for (const code of languageCodes) {
    if (code === 'en') continue;
    const messages = readLocale(code) ?? {};
    result[code] = {
      missing: Object.keys(english).filter((key) => !(key in messages)),
      extra: Object.keys(messages).filter((key) => !(key in english)),
    };
  }
  return result;
}

if (import.meta.main) {
  const only = process.argv.includes('--locale') ? process.argv[process.argv.indexOf('--locale') + 1] : undefined;
  const english = readLocale('en') ?? {};
  const result = Object.fromEntries(Object.entries(findMissing()).filter(([code]) => !only || code === only));
  if (process.argv.includes('--json')) {
    const out = Object.fromEntries(
      Object.entries(result).map(([code, { missing }]) => [code, Object.fromEntries(missing.map((key) => [key, english[key]]))]),
    );
    console.log(JSON.stringify(out, null, 2));
  } else {
    console.log(`en.json: ${Object.keys(english).length} keys`);
    for (const [code, { missing, extra }] of Object.entries(result)) {
      console.log(`${code.padEnd(8)} missing ${String(missing.length).padStart(4)}${extra.length ? `, extra ${extra.length}` : ''}`);
      if (process.argv.includes('--keys')) {
        if (missing.length) console.log(`  missing: ${missing.join(' ')}`);
        if (extra.length) console.log(`  extra: ${extra.join(' ')}`);
      }
    }
  }
}
