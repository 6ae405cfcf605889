import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { AppError, badParam, notFound } from '../../errors.ts';

/** The user documentation: docs/{lang}/{page}.md, English as the fallback language. */
export type DocsPage = {
  markdown: string;
  /** The language of the markdown returned (the requested one, or 'en' when it has no translation). */
  lang: string;
  requestedLang: string;
  /** Every language this page exists in, sorted. */
  available: string[];
};

export const fallbackDocsLang = 'en';
/** BCP 47-ish tags as used by the locales (en, pt-BR, zh-Hans); nothing that can name another folder. */
const langPattern = /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,2}$/;
/** Page names: lower-case words with '-' or '_'; no dots or slashes, so no traversal and no hidden files. */
const pagePattern = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const indexPage = 'index';

/**
 * The docs folder: DOCS_DIR when set, else `docs/` of the source tree, else `docs/` under the working
 * directory (the compiled binary runs from /$bunfs, where the source tree is not).
 */
export function defaultDocsRoot(): string {
  const fromEnv = process.env.DOCS_DIR;
  if (fromEnv) return resolve(fromEnv);
  const besideSource = resolve(import.meta.dir, '../../../../docs');
  return existsSync(besideSource) ? besideSource : resolve(process.cwd(), 'docs');
}

export async function getDocsPage(root: string, requestedLang: string, requestedPage: string): Promise<DocsPage> {
  if (!langPattern.test(requestedLang)) throw badParam('lang');
  const page = requestedPage === '' ? indexPage : requestedPage;
  if (!pagePattern.test(page)) throw notFound('page');
  const available = await languagesOf(root, page);
  const lang = available.includes(requestedLang) ? requestedLang : available.includes(fallbackDocsLang) ? fallbackDocsLang : undefined;
  if (!lang) throw notFound('page');
  const markdown = await readFile(pagePath(root, lang, page), 'utf8');
  return { markdown, lang, requestedLang, available };
}

async function languagesOf(root: string, page: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(root);
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const lang of entries) {
    if (!langPattern.test(lang)) continue;
    const info = await stat(pagePath(root, lang, page)).catch(() => undefined);
    if (info?.isFile()) found.push(lang);
  }
  return found.sort();
}

/** Both parts are pattern-checked already; the containment check is a second fence. */
function pagePath(root: string, lang: string, page: string): string {
  const base = resolve(root);
  const path = resolve(base, lang, `${page}.md`);
  if (!path.startsWith(base + sep)) throw new AppError('bad_param', 'Invalid `page`');
  return join(path);
}
