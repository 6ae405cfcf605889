import { useDom } from './setup.ts';
import { describe, expect, test } from 'bun:test';

/**
 * Issue 19, the one renderer of user markdown (components/markdown-view.tsx) that every page and the
 * editor's preview use: content images with a width srcset, sizes and their CSS size (spec §9 scale),
 * lazy; links rel 'ugc nofollow'; footnotes with the 999-character label limit; headings with prefixed
 * anchors. The sanitiser itself is checked in Chromium (tests/e2e/markdown-images.test.ts, the XSS
 * corpus): DOMPurify does not walk happy-dom's tree, so here it would test happy-dom, not the renderer.
 */
useDom();
const { renderUserMarkdown, maxFootnoteLabelLength } = await import('../../src/client/components/markdown-view.tsx');
const { setLanguage } = await import('../../src/client/lib/i18n/index.ts');

function render(markdown: string, options: Parameters<typeof renderUserMarkdown>[1] = {}): HTMLElement {
  const root = document.createElement('div');
  root.innerHTML = renderUserMarkdown(markdown, options);
  return root;
}

const shot = { id: 'img_abc', width: 2000, height: 1000, scale: 200, url: '/content-images/img_abc/2000' };

describe('content images', () => {
  test('a listed image: every width of the server as srcset, sizes, its CSS size (pixels ÷ scale), lazy and async', () => {
    const img = render('![A level](/content-images/img_abc/2000)', { images: [shot] }).querySelector('img')!;
    expect(img.getAttribute('alt')).toBe('A level');
    expect(img.getAttribute('src')).toBe('/content-images/img_abc/2000');
    expect(img.getAttribute('srcset')).toBe(
      '/content-images/img_abc/320 320w, /content-images/img_abc/640 640w, /content-images/img_abc/960 960w, /content-images/img_abc/1280 1280w, /content-images/img_abc/1920 1920w, /content-images/img_abc/2000 2000w',
    );
    // scale 200: made on a 2x screen, shown at half its pixels; sizes caps it by the viewport.
    expect(img.getAttribute('width')).toBe('1000');
    expect(img.getAttribute('height')).toBe('500');
    expect(img.getAttribute('sizes')).toBe('auto, (max-width: 1000px) 100vw, 1000px');
    expect(img.getAttribute('loading')).toBe('lazy');
    expect(img.getAttribute('decoding')).toBe('async');
  });

  test('scale 100 and a small image: the image as it is, its own width the only candidate above the steps below it', () => {
    const small = { id: 'small1', width: 500, height: 300, scale: 100, url: '/content-images/small1/500' };
    const img = render('![s](/content-images/small1/500)', { images: [small] }).querySelector('img')!;
    expect(img.getAttribute('srcset')).toBe('/content-images/small1/320 320w, /content-images/small1/500 500w');
    expect(img.getAttribute('width')).toBe('500');
    expect(img.getAttribute('height')).toBe('300');
  });

  test('an absolute address (PUBLIC_URL) keeps its origin in every candidate; a smaller size of a listed image is found by id', () => {
    const absolute = { ...shot, url: 'https://games.example/content-images/img_abc/2000' };
    const img = render('![a](https://games.example/content-images/img_abc/2000)', { images: [absolute] }).querySelector('img')!;
    expect(img.getAttribute('srcset')?.split(', ')[0]).toBe('https://games.example/content-images/img_abc/320 320w');
    expect(img.getAttribute('width')).toBe('1000');
    const smaller = render('![b](/content-images/img_abc/640)', { images: [shot] }).querySelector('img')!;
    expect(smaller.getAttribute('srcset')).toContain('/content-images/img_abc/2000 2000w');
    expect(smaller.getAttribute('height')).toBe('500');
  });

  test('a content image without a list (version notes): its address gives the srcset; no height is guessed', () => {
    const img = render('![n](/content-images/note9/700)').querySelector('img')!;
    expect(img.getAttribute('srcset')).toBe('/content-images/note9/320 320w, /content-images/note9/640 640w, /content-images/note9/700 700w');
    expect(img.getAttribute('width')).toBe('700');
    expect(img.hasAttribute('height')).toBe(false);
    expect(img.getAttribute('loading')).toBe('lazy');
  });

  test('other images are lazy without a srcset; an older listed address keeps its density srcset', () => {
    const root = render('![x](https://cdn.example/x.png)\n\n![y](/content/shot.png)', { images: [{ id: 'old1', width: 800, height: 400, scale: 200, url: '/content/shot.png' }] });
    const [other, listed] = [...root.querySelectorAll('img')];
    expect(other!.getAttribute('loading')).toBe('lazy');
    expect(other!.hasAttribute('srcset')).toBe(false);
    expect(other!.hasAttribute('width')).toBe(false);
    expect(listed!.getAttribute('srcset')).toBe('/content/shot.png 2x');
    expect(listed!.getAttribute('width')).toBe('400');
    // A path that only looks like a content image (a query) is not one.
    expect(render('![q](/content-images/abc/100?x=1)').querySelector('img')!.hasAttribute('srcset')).toBe(false);
  });
});

describe('links', () => {
  test("links to elsewhere are rel 'ugc nofollow' (spec §9), in a new tab without access to this page", () => {
    const link = render('[site](https://example.com/game)').querySelector('a')!;
    expect(link.getAttribute('rel')).toBe('ugc nofollow noopener noreferrer');
    expect(link.getAttribute('target')).toBe('_blank');
    const raw = render('<a href="https://example.com" rel="author" target="_self">raw</a>').querySelector('a')!;
    expect(raw.getAttribute('rel')).toBe('ugc nofollow noopener noreferrer');
    expect(raw.getAttribute('target')).toBe('_blank');
  });

  test('an anchor in the same text points at the prefixed id and stays in this tab', () => {
    const root = render('# Controls\n\n[see the controls](#controls)');
    const link = root.querySelector('a')!;
    expect(link.getAttribute('href')).toBe('#user-content-controls');
    expect(link.hasAttribute('target')).toBe(false);
    expect(link.hasAttribute('rel')).toBe(false);
    expect(root.querySelector('#user-content-controls')?.textContent).toBe('Controls');
  });
});

describe('controls', () => {
  test("a task list's checkboxes stay, disabled; any other input goes", () => {
    const root = render('- [x] done\n- [ ] open\n\n<input type="password" placeholder="Password">\n\n<input type="checkbox">');
    const boxes = [...root.querySelectorAll('input')];
    expect(boxes.map((box) => [box.getAttribute('type'), box.hasAttribute('disabled')])).toEqual([
      ['checkbox', true],
      ['checkbox', true],
      ['checkbox', true],
    ]);
    expect(root.querySelector('input[type="password"]') === null).toBe(true);
  });
});

describe('headings', () => {
  test('ids prefixed with user-content-, unique, at the offset level (capped at h6)', () => {
    const root = render('# Install\n\n## Install\n\n###### Deep\n\n# Über Spiel!', { headingOffset: 2 });
    const headings = [...root.querySelectorAll('h1, h2, h3, h4, h5, h6')].map((heading) => `${heading.tagName}#${heading.id}`);
    expect(headings).toEqual(['H3#user-content-install', 'H4#user-content-install-1', 'H6#user-content-deep', 'H3#user-content-über-spiel']);
  });

  test('ids the text wrote itself are prefixed too, so they cannot clobber the page', () => {
    const root = render('<div id="root">x</div>\n\n<img src="/a.png" name="getElementById" alt="a">');
    expect(root.querySelector('div')?.id).toBe('user-content-root');
    expect(root.querySelector('img')?.getAttribute('name')).toBe('user-content-getElementById');
  });

  test("the editor's preview has ids of its own: the page behind the dialog keeps its", () => {
    const root = render('# Title\n\n[back](#title)\n\nA note[^1].\n\n[^1]: Here.', { idPrefix: 'user-content-preview-' });
    expect(root.querySelector('h1')?.id).toBe('user-content-preview-title');
    expect(root.querySelector('a[href="#user-content-preview-title"]')).not.toBeNull();
    expect(root.querySelector('li')?.id).toBe('user-content-preview-fn-1');
  });
});

describe('footnotes', () => {
  test('references, the notes after the text with a way back, a hidden heading at the content level', () => {
    setLanguage('en');
    const root = render('Speedrun[^run] and more[^2].\n\n[^run]: Any percent.\n[^2]: Second note.', { headingOffset: 2 });
    const refs = [...root.querySelectorAll('sup a')];
    expect(refs.map((ref) => [ref.textContent, ref.getAttribute('href')])).toEqual([
      ['1', '#user-content-fn-run'],
      ['2', '#user-content-fn-2'],
    ]);
    const section = root.querySelector('section.footnotes')!;
    const heading = section.querySelector('h3')!;
    expect(heading.textContent).toBe('Footnotes');
    expect(heading.className).toBe('visually_hidden');
    expect(heading.id).toBe('user-content-fn-label');
    const notes = [...section.querySelectorAll('li')];
    expect(notes.map((note) => note.id)).toEqual(['user-content-fn-run', 'user-content-fn-2']);
    expect(notes[0]!.textContent).toContain('Any percent.');
    const back = notes[0]!.querySelector('a')!;
    expect(back.getAttribute('href')).toBe('#user-content-fn-ref-run');
    expect(back.getAttribute('aria-label')).toBe('Back to reference run');
    expect(back.hasAttribute('target')).toBe(false);
    expect(root.querySelector(`#${CSS.escape(refs[0]!.id)}`)).toBe(refs[0]!);
  });

  test('the notes speak the interface language', () => {
    setLanguage('de');
    const root = render('Text[^1].\n\n[^1]: Notiz.');
    expect(root.querySelector('section.footnotes h1')?.textContent).toBe('Fußnoten');
    expect(root.querySelector('section.footnotes li a')?.getAttribute('aria-label')).toBe('Zurück zum Verweis 1');
    setLanguage('en');
  });

  test(`labels of up to ${maxFootnoteLabelLength} characters are footnotes; a longer one stays literal text`, () => {
    const longest = 'a'.repeat(maxFootnoteLabelLength);
    const ok = render(`Text[^${longest}].\n\n[^${longest}]: The longest note.`);
    expect(ok.querySelectorAll('sup a')).toHaveLength(1);
    expect(ok.querySelector('section.footnotes li')?.textContent).toContain('The longest note.');

    const tooLong = 'b'.repeat(maxFootnoteLabelLength + 1);
    const literal = render(`Text[^${tooLong}].\n\n[^${tooLong}]: Not a note at all.`);
    expect(literal.querySelector('sup')).toBeNull();
    expect(literal.querySelector('section.footnotes')).toBeNull();
    expect(literal.textContent).toContain(`Text[^${tooLong}].`);
    expect(literal.textContent).toContain(`[^${tooLong}]: Not a note at all.`);
  });

  test('a reference without its note stays text', () => {
    const root = render('Dangling[^none].');
    expect(root.querySelector('sup')).toBeNull();
    expect(root.textContent).toContain('Dangling[^none].');
  });
});
