import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDocsPage } from '../../src/server/domains/docs/docs.service.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let root: string;
beforeAll(async () => {
  server = await startTestServer();
  root = mkdtempSync(join(tmpdir(), 'cartridge-docs-'));
  for (const [lang, page, text] of [
    ['en', 'index', '# Home'],
    ['en', 'guide', '# Guide'],
    ['de', 'guide', '# Anleitung'],
    ['pt-BR', 'guide', '# Guia'],
    ['fr', 'only-french', '# Seulement'],
  ] as const) {
    mkdirSync(join(root, lang), { recursive: true });
    writeFileSync(join(root, lang, `${page}.md`), text);
  }
  writeFileSync(join(root, 'secret.md'), 'outside');
  writeFileSync(join(root, 'en', '.hidden.md'), 'hidden');
});
afterAll(async () => {
  await server.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('GET /api/documentation/{lang}/{page}', () => {
  test('serves the English index and a page', async () => {
    for (const path of ['/api/documentation/en', '/api/documentation/en/index']) {
      const response = await server.fetch(path);
      expect(response.status).toBe(200);
      const body = await response.json();
      expect(body).toMatchObject({ lang: 'en', requestedLang: 'en' });
      expect(body.available).toContain('en');
      expect(body.markdown).toStartWith('# ');
    }
    const page = await (await server.fetch('/api/documentation/en/getting-started')).json();
    expect(page.markdown).toContain('Create an account');
  });

  test('falls back to English for a language without the page', async () => {
    const response = await server.fetch('/api/documentation/xx/getting-started');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ lang: 'en', requestedLang: 'xx' });
  });

  test('an unknown page is not_found', async () => {
    const response = await server.fetch('/api/documentation/en/no-such-page');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: 'not_found', message: 'page not found' });
  });

  test.each(['..%2F..%2Fpackage', '..', '.hidden', 'index.md', '%2Fetc%2Fpasswd', 'A'])('refuses the page %s without reading outside', async (page) => {
    const response = await server.fetch(`/api/documentation/en/${page}`);
    expect(response.status).toBe(404);
    expect((await response.json()).code).toBe('not_found');
  });

  test.each(['..', '..%2F..', 'EN', 'e', '.git'])('refuses the language %s', async (lang) => {
    const response = await server.fetch(`/api/documentation/${lang}/index`);
    expect([400, 404]).toContain(response.status);
    const body = await response.json();
    expect(body.markdown).toBeUndefined();
  });
});

describe('getDocsPage', () => {
  test('prefers the requested language and lists every language the page has', async () => {
    expect(await getDocsPage(root, 'de', 'guide')).toEqual({ markdown: '# Anleitung', lang: 'de', requestedLang: 'de', available: ['de', 'en', 'pt-BR'] });
    expect(await getDocsPage(root, 'pt-BR', 'guide')).toMatchObject({ markdown: '# Guia', lang: 'pt-BR' });
  });
  test('falls back to English, with the flag for the notice', async () => {
    expect(await getDocsPage(root, 'ja', 'guide')).toMatchObject({ markdown: '# Guide', lang: 'en', requestedLang: 'ja' });
    expect(await getDocsPage(root, 'ja', '')).toMatchObject({ markdown: '# Home', lang: 'en' });
  });
  test('a page only in another language is not shown in place of English', async () => {
    await expect(getDocsPage(root, 'de', 'only-french')).rejects.toMatchObject({ code: 'not_found' });
    expect(await getDocsPage(root, 'fr', 'only-french')).toMatchObject({ lang: 'fr' });
  });
  test('no traversal', async () => {
    await expect(getDocsPage(root, 'en', '../secret')).rejects.toMatchObject({ code: 'not_found' });
    await expect(getDocsPage(root, '..', 'secret')).rejects.toMatchObject({ code: 'bad_param' });
    await expect(getDocsPage(root, 'en/..', 'secret')).rejects.toMatchObject({ code: 'bad_param' });
    await expect(getDocsPage(root, 'en', '.hidden')).rejects.toMatchObject({ code: 'not_found' });
  });
  test('a missing docs folder is not_found, not a crash', async () => {
    await expect(getDocsPage(join(root, 'missing'), 'en', 'index')).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('embedded docs (the compiled binary)', () => {
  test('serve the same pages and fallbacks as a folder', async () => {
    const { embeddedDocs } = await import('../../src/server/domains/docs/docs.service.ts');
    const library = embeddedDocs({ 'en/index': '# Home', 'en/guide': '# Guide', 'de/guide': '# Anleitung', '../etc/guide': 'x' });
    expect(await getDocsPage(library, 'de', 'guide')).toEqual({ markdown: '# Anleitung', lang: 'de', requestedLang: 'de', available: ['de', 'en'] });
    expect(await getDocsPage(library, 'ja', '')).toMatchObject({ markdown: '# Home', lang: 'en', available: ['en'] });
    await expect(getDocsPage(library, 'en', 'missing')).rejects.toMatchObject({ code: 'not_found' });
  });
});
