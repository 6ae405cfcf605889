import { describe, expect, test } from 'bun:test';
import { storeRouteOf } from '../../src/server/domains/store/store-page-head.ts';
import { acceptedLanguages, pageLanguageOf } from '../../src/server/http/page-language.ts';
import { jsonLdText, plainTextLine } from '../../src/shared/store/page-meta.ts';
import { descriptionSummary, previewImage } from '../../src/shared/store/store-meta.ts';

/** Issue 21's pieces without a server: the description summary, the JSON-LD text, previews, routes, languages. */

describe('descriptionSummary', () => {
  test('the first paragraph with words, as plain text', () => {
    expect(descriptionSummary('# Title\n\n![shot](/content-images/a/640)\n\nA **bold** _move_ with `code` and [a link](https://x.example) &amp; more.\n\nNext.')).toBe(
      'A bold move with code and a link & more.',
    );
    expect(descriptionSummary('Line one\nline two  \nline three')).toBe('Line one line two line three');
    expect(descriptionSummary('See note[^1] here.\n\n[^1]: Note.')).toBe('See note here.');
    expect(descriptionSummary('<div>raw html block</div>\n\nAfter <b>inline</b> html &#x1F680; &#128640; &nosuch;')).toBe('After inline html 🚀 🚀 &nosuch;');
  });

  test("'' without a paragraph of words", () => {
    expect(descriptionSummary('')).toBe('');
    expect(descriptionSummary('# Only a heading\n\n- a list\n- of items')).toBe('');
    expect(descriptionSummary('![only](/a.png)\n\n***')).toBe('');
  });

  test('cut at a word, whole graphemes, with an ellipsis', () => {
    expect(plainTextLine('alpha beta gamma delta', 12)).toBe('alpha beta…');
    expect(plainTextLine('short', 12)).toBe('short');
    const family = '👩‍👩‍👧‍👦';
    const cut = plainTextLine(family.repeat(20), 5);
    expect(cut).toBe(`${family.repeat(4)}…`);
    expect(plainTextLine('a\u0000b\u2028c\td', 50)).toBe('a b c d');
  });
});

describe('jsonLdText', () => {
  test('parses back to the same data and holds no < > & or line separators', () => {
    const value = { name: '</script><!-- & \u2028 "q" مرحبا 🚀' };
    const text = jsonLdText(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('previewImage', () => {
  test('the smallest made size from 1200 px, else the largest; absolute', () => {
    expect(previewImage({ id: 'abc', width: 2560, height: 1440 }, 'https://g.example/')).toEqual({ url: 'https://g.example/content-images/abc/1280', width: 1280, height: 720 });
    expect(previewImage({ id: 'abc', width: 1000, height: 500 }, 'https://g.example')).toEqual({ url: 'https://g.example/content-images/abc/1000', width: 1000, height: 500 });
    expect(previewImage({ id: 'abc', width: 1200, height: 630 }, 'https://g.example').width).toBe(1200);
  });
});

describe('storeRouteOf', () => {
  test('public page paths, ids decoded and checked', () => {
    expect(storeRouteOf('/')).toEqual({ kind: 'home' });
    expect(storeRouteOf('/store')).toEqual({ kind: 'index' });
    expect(storeRouteOf('/store/')).toEqual({ kind: 'index' });
    expect(storeRouteOf('/store/abc')).toEqual({ kind: 'project', project: 'abc' });
    expect(storeRouteOf('/store/ab%63/')).toEqual({ kind: 'project', project: 'abc' });
    expect(storeRouteOf('/store/p/b/k/play')).toEqual({ kind: 'play', project: 'p', branch: 'b', package: 'k' });
    for (const path of ['/me', '/store/a%2Fb', '/store/%00', '/store/%E0%A4%A', '/store/a/b', '/store/p/b/k/cloud-play', `/store/${'a'.repeat(65)}`, '/storex', '/store//']) {
      expect([path, storeRouteOf(path)]).toEqual([path, undefined]);
    }
  });
});

describe('page language', () => {
  test('Accept-Language by preference, q=0 dropped', () => {
    expect(acceptedLanguages('fr;q=0.5, de-AT, en;q=0, *;q=0.1')).toEqual(['de-AT', 'fr']);
    expect(acceptedLanguages(null)).toEqual([]);
  });

  test('?lang= first (named: in the canonical URL), then the browser, then en', () => {
    expect(pageLanguageOf(new URL('http://x/store?lang=zh-hant'), 'de')).toEqual({ code: 'zh-Hant', dir: 'ltr', inUrl: true });
    expect(pageLanguageOf(new URL('http://x/store?lang=xx'), 'ar-EG,en;q=0.5')).toEqual({ code: 'ar', dir: 'rtl', inUrl: false });
    expect(pageLanguageOf(new URL('http://x/store'), 'sv')).toEqual({ code: 'en', dir: 'ltr', inUrl: false });
  });
});
