import { useDom } from './setup.ts';
import { beforeEach, describe, expect, test } from 'bun:test';

useDom();
const { applyPageMeta, META_LOADING } = await import('../../src/client/lib/page-meta.ts');
const { simplePageMeta } = await import('../../src/shared/store/page-meta.ts');

/**
 * The head kept in step with the screen (issue 21): a public screen whose data is still loading keeps
 * the head the server wrote for its address (a crawler running script must never catch it bare), and
 * drops a head another screen left.
 */
const context = { baseUrl: location.origin, appName: 'Cartridge', language: 'en', languageInUrl: false, languages: ['en', 'de'] };
const metaFor = (path: string, title: string) => simplePageMeta(path, title, `About ${title}.`, context);

function head() {
  return {
    title: document.title,
    description: document.head.querySelector('meta[name="description"]')?.getAttribute('content') ?? null,
    canonical: document.head.querySelector('link[rel="canonical"]')?.getAttribute('href') ?? null,
    managed: document.head.querySelectorAll('meta[name="description"], link[rel="canonical"], meta[property^="og:"], link[rel="alternate"]').length,
  };
}

beforeEach(() => {
  document.head.innerHTML = '<title>Cartridge</title>';
  history.replaceState(null, '', '/store/game1');
});

describe('applyPageMeta', () => {
  test('a screen with meta writes it; the same meta again changes no node', () => {
    applyPageMeta('Game - Cartridge', metaFor('/store/game1', 'Game'));
    expect(head()).toMatchObject({ title: 'Game - Cartridge', description: 'About Game.', canonical: `${location.origin}/store/game1` });
    const before = document.head.querySelector('meta[name="description"]');
    applyPageMeta('Game - Cartridge', metaFor('/store/game1', 'Game'));
    expect(document.head.querySelector('meta[name="description"]')).toBe(before);
  });

  test("loading keeps the server's head for this address, title included", () => {
    applyPageMeta('Game - Cartridge', metaFor('/store/game1', 'Game'));
    const written = head();
    applyPageMeta('Store - Cartridge', META_LOADING);
    expect(head()).toEqual(written);
    expect(written.managed).toBeGreaterThan(4);
  });

  test("loading drops a head written for another address, and a screen without meta drops all", () => {
    applyPageMeta('Other - Cartridge', metaFor('/store/other', 'Other'));
    applyPageMeta('Store - Cartridge', META_LOADING);
    expect(head()).toEqual({ title: 'Store - Cartridge', description: null, canonical: null, managed: 0 });

    applyPageMeta('Game - Cartridge', metaFor('/store/game1', 'Game'));
    applyPageMeta('Projects - Cartridge', undefined);
    expect(head()).toEqual({ title: 'Projects - Cartridge', description: null, canonical: null, managed: 0 });
  });

  test('a hostile canonical in the head is never trusted as this address', () => {
    document.head.insertAdjacentHTML('beforeend', '<link rel="canonical" href="http://[bad"><meta name="description" content="stale">');
    applyPageMeta('Store - Cartridge', META_LOADING);
    expect(head()).toMatchObject({ description: null, canonical: null });
  });
});
