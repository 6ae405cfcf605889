/**
 * Documentation headings get ids (issue 29: section links did not scroll): GitHub's slugs, unique per
 * page, readable for every script; and every section link of docs/ leads to a heading that exists.
 */
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import { marked, type Token, type Tokens } from 'marked';
import { createHeadingIds, headingSlug } from '../../src/shared/docs/heading-ids.ts';

const docsRoot = resolve(import.meta.dir, '../../docs');

/** A heading's text as the rendered page shows it (what the client slugs). */
function plainText(tokens: Token[]): string {
  return tokens
    .map((token) => {
      if ('tokens' in token && token.tokens) return plainText(token.tokens);
      if (token.type === 'html') return '';
      if (token.type === 'codespan' || token.type === 'text' || token.type === 'escape') return (token as Tokens.Text).text.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'");
      return token.raw;
    })
    .join('');
}

/** Every page of docs/{lang}/: its headings' plain text and its markdown. */
function docsPages(): { lang: string; page: string; markdown: string; headings: string[] }[] {
  const pages = [];
  for (const lang of readdirSync(docsRoot, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name)) {
    for (const file of readdirSync(join(docsRoot, lang)).filter((name) => name.endsWith('.md'))) {
      const markdown = readFileSync(join(docsRoot, lang, file), 'utf8');
      const headings: string[] = [];
      marked.walkTokens(marked.lexer(markdown), (token) => {
        if (token.type === 'heading') headings.push(plainText((token as Tokens.Heading).tokens));
      });
      pages.push({ lang, page: file.slice(0, -3), markdown, headings });
    }
  }
  return pages;
}

describe('heading ids', () => {
  test("GitHub's slugs: lower case, punctuation dropped, spaces as '-'", () => {
    expect(headingSlug('Jobs')).toBe('jobs');
    expect(headingSlug('Cover, screenshots and the store index')).toBe('cover-screenshots-and-the-store-index');
    expect(headingSlug('`cartridge push` --json')).toBe('cartridge-push---json');
    expect(headingSlug('  What each process keeps in memory  ')).toBe('what-each-process-keeps-in-memory');
    expect(headingSlug('Über die Größe: 5 % (ca.)')).toBe('über-die-größe-5--ca');
  });

  test('non-Latin headings keep their letters: the id is readable and the same every time', () => {
    expect(headingSlug('手順とヒント')).toBe('手順とヒント');
    expect(headingSlug('Установка и запуск')).toBe('установка-и-запуск');
    expect(headingSlug('التثبيت والتشغيل')).toBe('التثبيت-والتشغيل');
    expect(headingSlug('설치 방법')).toBe('설치-방법');
    expect(headingSlug('क्लाउड प्ले')).toBe('क्लाउड-प्ले');
    expect(headingSlug('Установка и запуск')).toBe(headingSlug('Установка и запуск'));
  });

  test('unique per page: repeats get -1, -2; a heading of symbols only is "section"', () => {
    const next = createHeadingIds();
    expect(['Setup', 'Setup', 'Setup-1', 'Setup', '🚀', '!!', 'Section'].map(next)).toEqual(['setup', 'setup-1', 'setup-1-1', 'setup-2', 'section', 'section-1', 'section-2']);
    // A new page starts over.
    expect(createHeadingIds()('Setup')).toBe('setup');
  });

  test('the same ids as github-slugger (what GitHub shows for docs/) for every heading of docs/ and non-Latin ones', () => {
    const samples = [...docsPages().flatMap((page) => page.headings), '手順とヒント', 'Установка и запуск', 'التثبيت والتشغيل', '설치 방법', 'Ça marche — vraiment ?', 'Ünïcödé & <tags>', 'a_b c.d/e'];
    expect(samples.length).toBeGreaterThan(100);
    for (const text of samples) expect(headingSlug(text)).toBe(new GithubSlugger().slug(text.trim()));
  });
});

describe('section links in docs/', () => {
  test('every #section link leads to a heading of its page', () => {
    const pages = docsPages();
    const ids = new Map(pages.map((page) => {
      const next = createHeadingIds();
      return [`${page.lang}/${page.page}`, new Set(page.headings.map(next))];
    }));
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      for (const match of page.markdown.matchAll(/\]\(([^)\s]*)#([^)\s]+)\)/g)) {
        const [, target, fragment] = match;
        const path = target === '' ? `${page.lang}/${page.page}` : /^\/docs\/([^/]+)\/([^/#]*)$/.exec(target!)?.slice(1).map((part, index) => (index === 1 && part === '' ? 'index' : part)).join('/');
        if (!path) continue;
        checked += 1;
        if (!ids.get(path)?.has(decodeURIComponent(fragment!))) broken.push(`${page.lang}/${page.page}: ${match[0]}`);
      }
    }
    expect(checked).toBeGreaterThan(5);
    expect(broken).toEqual([]);
  });
});
