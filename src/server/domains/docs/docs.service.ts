import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { DocsPage } from '../../../shared/api/replies.ts';
import { AppError, badParam, notFound } from '../../errors.ts';

/** The user documentation: docs/{lang}/{page}.md, English as the fallback language (DocsPage: lang is the one returned, available sorted). */

const fallbackDocsLang = 'en';
/** BCP 47-ish tags as used by the locales (en, pt-BR, zh-Hans); nothing that can name another folder. */
const langPattern = /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,2}$/;
/** Page names: lower-case words with '-' or '_'; no dots or slashes, so no traversal and no hidden files. */
const pagePattern = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const indexPage = 'index';

/** Where pages come from: a folder on disk, or the copy embedded in the compiled binary. */
export type DocsLibrary = {
  languagesOf(page: string): Promise<string[]>;
  read(lang: string, page: string): Promise<string>;
};

/** `lang/page` → markdown of every docs/{lang}/{page}.md, defined by the binary build. */
declare const CARTRIDGE_EMBEDDED_DOCS: Record<string, string> | undefined;

/**
 * DOCS_DIR when set; else the pages embedded in the compiled binary (it runs from /$bunfs, where no
 * docs folder is); else `docs/` of the source tree, else `docs/` under the working directory.
 */
export function defaultDocsLibrary(): DocsLibrary {
  const fromEnv = process.env.DOCS_DIR;
  if (fromEnv) return docsFolder(resolve(fromEnv));
  if (typeof CARTRIDGE_EMBEDDED_DOCS !== 'undefined') return embeddedDocs(CARTRIDGE_EMBEDDED_DOCS);
  const besideSource = resolve(import.meta.dir, '../../../../docs');
  return docsFolder(existsSync(besideSource) ? besideSource : resolve(process.cwd(), 'docs'));
}

function docsFolder(root: string): DocsLibrary {
  return { languagesOf: (page) => languagesOf(root, page), read: (lang, page) => readFile(pagePath(root, lang, page), 'utf8') };
}

export function embeddedDocs(files: Record<string, string>): DocsLibrary {
  return {
    languagesOf: async (page) => Object.keys(files).filter((key) => key.endsWith(`/${page}`)).map((key) => key.slice(0, -page.length - 1)).filter((lang) => langPattern.test(lang)).sort(),
    read: async (lang, page) => files[`${lang}/${page}`] ?? Promise.reject(notFound('page')),
  };
}

export async function getDocsPage(source: DocsLibrary | string, requestedLang: string, requestedPage: string): Promise<DocsPage> {
  const library = typeof source === 'string' ? docsFolder(source) : source;
  if (!langPattern.test(requestedLang)) throw badParam('lang');
  const page = requestedPage === '' ? indexPage : requestedPage;
  if (!pagePattern.test(page)) throw notFound('page');
  const available = await library.languagesOf(page);
  const lang = available.includes(requestedLang) ? requestedLang : available.includes(fallbackDocsLang) ? fallbackDocsLang : undefined;
  if (!lang) throw notFound('page');
  const markdown = await library.read(lang, page);
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
