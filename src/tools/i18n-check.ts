/**
 * Checks the translations (run by tests/unit/i18n.test.ts, so `bun test` and CI run it):
 * - project.inlang/settings.json loads its plugin from node_modules (no URL) and lists exactly the
 *   languages of src/shared/i18n/languages.ts;
 * - every locale file has exactly the keys of locales/en.json (none missing, none extra);
 * - every translation uses the same {params} as English;
 * - no translation of a sentence (two words or more) is a copy of the English text, nor, in a language
 *   not written in Latin script, of any English word; unless the key is in `sameAsEnglishAllowed`
 *   below (brand names, codes, words some languages borrow);
 * - each language keeps to its glossary (`glossary` below: one word for one thing in every message);
 * - the compiled output (src/shared/i18n/paraglide) holds every message and says each locale's text;
 * - every message is used: the client (and the server's page heads) import each one as its own module
 *   by its literal name (`paraglide/messages/<key>.js`), so a key no source file imports is dead weight
 *   in 14 files.
 *
 *   bun src/tools/i18n-check.ts [--no-compile]   compiles if needed, prints the problems, exits 1 if any
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { languageCodes } from '../shared/i18n/languages.ts';
import { compileMessages, localesDir, projectPath, repoRoot } from './i18n-compile.ts';

/**
 * Keys whose text may equal English: per key, '*' (any language) or the languages allowed.
 * Keep it short and specific; each entry is a claim that the copy is the right translation.
 */
export const sameAsEnglishAllowed: Record<string, '*' | readonly string[]> = {};

/**
 * Words a language must not use for a thing it names otherwise everywhere else, with the word to use.
 * German says "Store" for the store (its pages, links and headings), never "Shop".
 */
export const glossary: Record<string, readonly { avoid: RegExp; use: string }[]> = {
  de: [{ avoid: /Shop/, use: 'Store' }],
};

/** The glossary's objections to one message of a language: [] when it keeps to it. */
export function glossaryProblems(code: string, key: string, text: string): string[] {
  return (glossary[code] ?? []).filter((term) => term.avoid.test(text)).map((term) => `${code}: ${key} says ${JSON.stringify(text.match(term.avoid)![0])} where this language says "${term.use}": ${JSON.stringify(text)}`);
}

export type LocaleMessages = Record<string, string | unknown>;

export function readLocale(code: string): LocaleMessages | undefined {
  const file = join(localesDir, `${code}.json`);
  if (!existsSync(file)) return undefined;
  const json = JSON.parse(readFileSync(file, 'utf8')) as LocaleMessages;
  delete json.$schema;
  return json;
}

/** The `{name}` placeholders of a message text, sorted; escaped braces (`\{`) are literal text. */
export function extractParams(text: string): string[] {
  const params = new Set<string>();
  for (const match of text.replace(/\\[{}\\]/g, '').matchAll(/\{\s*([^{}\s]+)\s*\}/g)) params.add(match[1]!);
  return [...params].sort();
}

/** Languages not written in Latin script: there even a one-word copy of English is suspicious. */
export const nonLatinLanguages: readonly string[] = ['ar', 'ja', 'ko', 'ru', 'zh-Hans', 'zh-Hant'];

/** True when `text` holds a Latin-script word of three letters or more (outside {params}). */
export function hasLatinWord(text: string): boolean {
  return /\p{Script=Latin}{3,}/u.test(text.replace(/\{[^{}]*\}/g, ' '));
}

/** True when a copy of this English text is probably an untranslated sentence. */
export function isSentence(text: string): boolean {
  const words = text
    .replace(/\\[{}\\]/g, '')
    .replace(/\{[^{}]*\}/g, ' ')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => /\p{L}{2,}/u.test(word));
  return words.length >= 2;
}

function isAllowedSame(key: string, code: string): boolean {
  const rule = sameAsEnglishAllowed[key];
  return rule === '*' || (Array.isArray(rule) && rule.includes(code));
}

function checkSettings(problems: string[]): void {
  const settings = JSON.parse(readFileSync(join(projectPath, 'settings.json'), 'utf8')) as {
    baseLocale?: string;
    locales?: string[];
    modules?: string[];
    'plugin.inlang.messageFormat'?: { pathPattern?: string };
  };
  if (settings.baseLocale !== 'en') problems.push(`settings.json: baseLocale is ${settings.baseLocale}, expected en`);
  const locales = [...(settings.locales ?? [])].sort();
  const table = [...languageCodes].sort();
  if (locales.join() !== table.join()) {
    problems.push(`settings.json locales [${locales.join(', ')}] differ from languages.ts [${table.join(', ')}]`);
  }
  for (const module of settings.modules ?? []) {
    if (/^[a-z]+:\/\//i.test(module)) problems.push(`settings.json: module ${module} is a URL; use the copy in node_modules`);
    else if (!existsSync(join(projectPath, '..', module))) problems.push(`settings.json: module ${module} does not exist`);
  }
  if (!settings.modules?.length) problems.push('settings.json: no modules');
  if (settings['plugin.inlang.messageFormat']?.pathPattern !== './locales/{locale}.json') {
    problems.push('settings.json: plugin.inlang.messageFormat.pathPattern should be ./locales/{locale}.json');
  }
}

/** Problems of the message files; [] when all is well. */
export function checkLocales(): string[] {
  const problems: string[] = [];
  checkSettings(problems);
  const english = readLocale('en');
  if (!english || Object.keys(english).length === 0) return [...problems, 'locales/en.json is missing or empty'];
  for (const [key, text] of Object.entries(english)) {
    if (typeof text !== 'string') problems.push(`en: ${key} is not a plain string (the check and the translations assume simple messages)`);
  }
  for (const code of languageCodes) {
    if (code === 'en') continue;
    const messages = readLocale(code);
    if (!messages) {
      problems.push(`${code}: locales/${code}.json is missing`);
      continue;
    }
    const missing = Object.keys(english).filter((key) => !(key in messages));
    const extra = Object.keys(messages).filter((key) => !(key in english));
    if (missing.length) problems.push(`${code}: ${missing.length} missing keys: ${missing.join(', ')}`);
    if (extra.length) problems.push(`${code}: ${extra.length} keys not in en.json: ${extra.join(', ')}`);
    for (const [key, englishText] of Object.entries(english)) {
      const text = messages[key];
      if (text === undefined || typeof englishText !== 'string') continue;
      if (typeof text !== 'string') {
        problems.push(`${code}: ${key} is not a plain string`);
        continue;
      }
      if (text.trim() === '') problems.push(`${code}: ${key} is empty`);
      problems.push(...glossaryProblems(code, key, text));
      const expected = extractParams(englishText).join(', ');
      const actual = extractParams(text).join(', ');
      if (expected !== actual) problems.push(`${code}: ${key} has params {${actual}}, English has {${expected}}`);
      const suspicious = isSentence(englishText) || (nonLatinLanguages.includes(code) && hasLatinWord(englishText));
      if (text === englishText && suspicious && !isAllowedSame(key, code)) {
        problems.push(`${code}: ${key} is the English text (untranslated?): ${JSON.stringify(text)}`);
      }
    }
  }
  return problems;
}

/** Source files of src/ (the compiled messages excluded), for the unused-message rule. */
function listSources(dir = join(repoRoot, 'src')): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'paraglide') files.push(...listSources(path));
    } else if (/\.(ts|tsx)$/.test(entry.name)) files.push(path);
  }
  return files;
}

/** Keys of en.json that no source file imports (paraglide/messages/<key>.js). */
export function findUnusedMessages(): string[] {
  const imported = new Set<string>();
  for (const file of listSources()) {
    for (const match of readFileSync(file, 'utf8').matchAll(/paraglide\/messages\/([a-z0-9_]+)\.js/g)) imported.add(match[1]!);
  }
  return Object.keys(readLocale('en') ?? {}).filter((key) => !imported.has(key));
}

/** Literal text of a simple message, params kept as `{name}`, as the compiled function renders it. */
function renderSource(text: string): string {
  return text.replace(/\\([{}\\])/g, '$1');
}

type MessageFunction = (inputs?: Record<string, unknown>, options?: { locale?: string }) => string;

/**
 * Problems of the compiled output: a message module per English key, and each locale's function
 * says that locale's text (English for keys a locale lacks). Compile first (i18n-compile.ts).
 */
export async function checkCompiledOutput(): Promise<string[]> {
  const problems: string[] = [];
  const english = readLocale('en') ?? {};
  const messagesFile = join(repoRoot, 'src/shared/i18n/paraglide/messages.js');
  if (!existsSync(messagesFile)) return ['src/shared/i18n/paraglide/messages.js is missing: run npm run i18n'];
  const compiled = (await import(messagesFile)) as { m: Record<string, MessageFunction | undefined> };
  const names = Object.keys(compiled.m);
  const wrong: string[] = [];
  if (names.length === 0) return ['paraglide compiled no messages: check "modules" in project.inlang/settings.json'];
  for (const code of languageCodes) {
    const messages = readLocale(code) ?? {};
    for (const [key, englishText] of Object.entries(english)) {
      if (typeof englishText !== 'string') continue;
      const render = compiled.m[key];
      if (!render) {
        if (code === 'en') problems.push(`compiled output lacks message ${key}: run npm run i18n`);
        continue;
      }
      const source = typeof messages[key] === 'string' ? (messages[key] as string) : undefined;
      if (source === undefined) continue; // reported by checkLocales; paraglide falls back
      const inputs = Object.fromEntries(extractParams(source).map((name) => [name, `{${name}}`]));
      const rendered = render(inputs, { locale: code });
      if (rendered !== renderSource(source)) wrong.push(`${code}.${key} renders ${JSON.stringify(rendered)}, expected ${JSON.stringify(renderSource(source))}`);
    }
  }
  if (wrong.length) {
    problems.push(
      `compiled output differs from locales/ for ${wrong.length} messages (stale? run npm run i18n): ${wrong.slice(0, 5).join('; ')}${wrong.length > 5 ? '; …' : ''}`,
    );
  }
  return problems;
}

if (import.meta.main) {
  if (!process.argv.includes('--no-compile')) await compileMessages();
  const unused = findUnusedMessages();
  const problems = [...checkLocales(), ...(await checkCompiledOutput()), ...(unused.length ? [`${unused.length} messages no client file imports: ${unused.join(', ')}`] : [])];
  for (const problem of problems) console.error(problem);
  console.log(problems.length ? `i18n check: ${problems.length} problems` : 'i18n check: ok');
  process.exit(problems.length ? 1 : 0);
}
