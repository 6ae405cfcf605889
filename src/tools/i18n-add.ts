/**
 * Adds new messages to every language at once: reads a JSON file shaped
 * { "en": { "key": "text", ... }, "de": { ... }, ... } that holds every language of languages.ts for
 * every key, appends the keys to locales/en.json (keeping its order) and merges the translations into
 * the other files. Refuses, changing nothing, when a language or a translation is missing or a key
 * already exists in en.json with another text (--replace overwrites such keys instead).
 *
 * Several people (or agents) may add messages at the same time: the read-modify-write of the locale
 * files runs under an exclusive lock directory (locales/.add-lock), so no addition is lost.
 *
 *   bun src/tools/i18n-add.ts messages.json [--replace]
 */
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { languageCodes } from '../shared/i18n/languages.ts';
import { localesDir } from './i18n-compile.ts';
import { mergeLocale } from './i18n-merge.ts';

type Additions = Record<string, Record<string, string>>;

/** The problems that make an addition refused; empty when it can be applied. */
export function checkAdditions(additions: Additions, english: Record<string, string>, options: { replace?: boolean } = {}): string[] {
  const problems: string[] = [];
  const keys = Object.keys(additions.en ?? {});
  if (keys.length === 0) problems.push('no "en" messages');
  for (const key of keys) {
    if (!/^[a-z][a-z0-9_]*$/.test(key)) problems.push(`${key}: keys are lower_snake_case`);
    if (!options.replace && english[key] !== undefined && english[key] !== additions.en![key]) problems.push(`${key}: already in en.json with another text`);
  }
  for (const code of languageCodes) {
    const translations = additions[code];
    if (!translations) {
      problems.push(`${code}: missing`);
      continue;
    }
    const missing = keys.filter((key) => typeof translations[key] !== 'string' || translations[key]!.trim() === '');
    if (missing.length) problems.push(`${code}: no text for ${missing.join(', ')}`);
    const extra = Object.keys(translations).filter((key) => !keys.includes(key));
    if (extra.length) problems.push(`${code}: keys not in "en": ${extra.join(', ')}`);
  }
  for (const code of Object.keys(additions)) {
    if (!(languageCodes as readonly string[]).includes(code)) problems.push(`${code}: unknown language`);
  }
  return problems;
}

async function withLock<T>(action: () => T): Promise<T> {
  const lock = join(localesDir, '.add-lock');
  for (let attempt = 0; ; attempt++) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 600) throw error;
      await Bun.sleep(100);
    }
  }
  try {
    return action();
  } finally {
    rmdirSync(lock);
  }
}

export async function addMessages(additions: Additions, options: { replace?: boolean } = {}): Promise<number> {
  return withLock(() => {
    const englishFile = join(localesDir, 'en.json');
    const english = JSON.parse(readFileSync(englishFile, 'utf8')) as Record<string, string>;
    const problems = checkAdditions(additions, english, options);
    if (problems.length) throw new Error(`nothing added:\n  ${problems.join('\n  ')}`);
    writeFileSync(englishFile, `${JSON.stringify({ ...english, ...additions.en }, null, 2)}\n`);
    for (const code of languageCodes) {
      if (code !== 'en') mergeLocale(code, additions[code]!);
    }
    return Object.keys(additions.en!).length;
  });
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const files = args.filter((arg) => !arg.startsWith('--'));
  if (files.length !== 1) {
    console.error('usage: bun src/tools/i18n-add.ts messages.json [--replace]');
    process.exit(2);
  }
  try {
    const added = await addMessages(JSON.parse(readFileSync(files[0]!, 'utf8')) as Additions, { replace: args.includes('--replace') });
    console.log(`added ${added} messages in ${languageCodes.length} languages`);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
