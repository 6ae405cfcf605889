import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Locator, Page } from 'playwright-core';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { contentImages } from '../../src/server/db/schema/index.ts';
import type { TestUser } from '../support/accounts.ts';
import { makePublic, makeTeam, type TestProject } from '../support/projects.ts';
import { en, openDialog, section, startE2E, visit, watchConsole, type E2E } from './support/app.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';

/**
 * Issue 19 in Chromium: an image pasted into the project description (a synthetic paste event with a
 * PNG file) is converted to JPEG in the page, uploaded and referenced; the store page shows it through
 * the one renderer with a width srcset whose every source loads; the renderer's sanitiser stays at zero
 * on an XSS corpus; footnotes and heading anchors work; the editor dialog is axe-clean in both themes.
 */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

async function putDescription(owner: TestUser, project: TestProject, markdown: string): Promise<void> {
  const response = await e2e.server.fetch(`/api/projects/${project.id}/description`, { method: 'PUT', token: owner.token, json: { markdown, lang: null, images: [] } });
  expect(response.status).toBe(200);
}

async function pngBase64(width: number, height: number): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#1d3557"/><circle cx="${width / 2}" cy="${height / 2}" r="${height / 3}" fill="#e9c46a" fill-opacity="0.7"/></svg>`;
  return (await sharp(Buffer.from(svg)).png().toBuffer()).toString('base64');
}

/** Pastes files into the element as a browser does: a ClipboardEvent whose clipboardData holds them. */
async function pasteFiles(target: Locator, files: { name: string; type: string; base64: string }[]): Promise<boolean> {
  return target.evaluate((element, given) => {
    const transfer = new DataTransfer();
    for (const file of given) transfer.items.add(new File([Uint8Array.from(atob(file.base64), (char) => char.charCodeAt(0))], file.name, { type: file.type }));
    const textarea = element as HTMLTextAreaElement;
    textarea.focus();
    textarea.setSelectionRange(textarea.value.length, textarea.value.length);
    return textarea.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
  }, files);
}

async function openEditor(page: Page, project: TestProject): Promise<{ dialog: Locator; text: Locator }> {
  await visit(page, `/projects/${project.id}`, 'page_project_overview');
  const description = section(page, 'project_overview_description');
  await description.getByRole('button', { name: en('project_overview_edit_description'), exact: true }).click();
  const dialog = openDialog(page);
  await dialog.waitFor();
  return { dialog, text: dialog.getByLabel(en('markdown_editor_label'), { exact: true }) };
}

const contentReference = /!\[[^\]]*\]\((http[^)]*\/content-images\/[A-Za-z0-9_-]+\/\d+)\)/;

test('a pasted PNG goes up as a JPEG and is saved with the description; the store page shows it with a srcset whose sources load', async () => {
  const { project, owner } = await makeTeam(e2e.server);
  await makePublic(e2e.server, project, owner);
  // A 2x screen: the image's scale is 200 (spec §9) and the page shows it at half its pixels.
  const { page, context } = await e2e.openSignedIn({ user: owner, deviceScaleFactor: 2 });
  const problems = watchConsole(page);
  let parts = 0;
  page.on('request', (request) => {
    if (request.method() === 'PUT' && new URL(request.url()).pathname.startsWith('/api/uploads/content-images/')) parts += 1;
  });
  // Finalize held back a moment, so the temporary preview can be seen.
  let releaseFinalize = () => {};
  const finalizeHeld = new Promise<void>((resolve) => (releaseFinalize = resolve));
  await page.route('**/content/images/*/finalize', async (route) => {
    await finalizeHeld;
    await route.continue();
  });
  const { dialog, text } = await openEditor(page, project);
  await text.fill('Our first level:\n\n');
  expect(await pasteFiles(text, [{ name: 'level one.png', type: 'image/png', base64: await pngBase64(1600, 900) }])).toBe(false);
  // At once: the temporary reference and its preview, shown through the renderer (only this page's own object URL is kept).
  const blob = /^Our first level:\n\n!\[level one\]\((blob:[^)]+)\)$/.exec(await text.inputValue())?.[1];
  expect(blob).toBeDefined();
  const temporary = dialog.locator(`.markdown_editor_preview img[src="${blob}"]`);
  await temporary.waitFor();
  await page.waitForFunction((element) => (element as HTMLImageElement).complete && (element as HTMLImageElement).naturalWidth === 1600, await temporary.elementHandle());
  // Preparing (converted in the browser), then uploading: finalize is held, so it stays there.
  await dialog.locator('.pasted_image', { hasText: en('markdown_image_uploading', { name: 'level one.png' }) }).waitFor({ timeout: 20_000 });
  expect(await dialog.locator('.pasted_image').textContent()).toBe(en('markdown_image_uploading', { name: 'level one.png' }));
  releaseFinalize();
  // Then the image's address, rendered with its srcset in the preview.
  await page.waitForFunction((element) => /\/content-images\//.test((element as HTMLTextAreaElement).value), await text.elementHandle(), { timeout: 20_000 });
  const url = contentReference.exec(await text.inputValue())![1]!;
  await dialog.locator('.markdown_editor_preview img[srcset]').waitFor();
  expect(parts).toBe(1);

  await dialog.getByRole('button', { name: en('markdown_editor_save'), exact: true }).click();
  await dialog.waitFor({ state: 'detached', timeout: 10_000 });
  const stored = await e2e.server.trpc(owner.token).projects.description.get.query({ project: project.id });
  expect(stored.markdown).toBe(`Our first level:\n\n![level one](${url})`);
  expect(stored.images).toEqual([{ id: expect.any(String), width: 1600, height: 900, scale: 200, url }]);
  // Converted in the browser: what went up was a JPEG, not the PNG that was pasted.
  const [row] = await e2e.server.deps.db.select({ sourceFormat: contentImages.sourceFormat }).from(contentImages).where(eq(contentImages.id, stored.images[0]!.id));
  expect(row?.sourceFormat).toBe('jpeg');
  expect(problems).toEqual([]);

  // A visitor on the store page, on a 1x screen.
  const visitor = await e2e.open();
  await visit(visitor.page, `/store/${project.id}`, 'page_store_project');
  const img = visitor.page.locator('main .markdown_view img[alt="level one"]');
  await img.waitFor({ timeout: 10_000 });
  const id = stored.images[0]!.id;
  const origin = new URL(url).origin;
  expect(await img.getAttribute('srcset')).toBe([320, 640, 960, 1280, 1600].map((width) => `${origin}/content-images/${id}/${width} ${width}w`).join(', '));
  expect(await img.getAttribute('sizes')).toBe('auto, (max-width: 800px) 100vw, 800px');
  expect(await img.getAttribute('width')).toBe('800');
  expect(await img.getAttribute('height')).toBe('450');
  expect(await img.getAttribute('loading')).toBe('lazy');
  expect(await img.getAttribute('decoding')).toBe('async');
  // It loads (lazily, once near the viewport) from one of its candidates, at its size: no layout shift.
  await img.scrollIntoViewIfNeeded();
  await visitor.page.waitForFunction((element) => (element as HTMLImageElement).complete && (element as HTMLImageElement).naturalWidth > 0, await img.elementHandle(), { timeout: 10_000 });
  const shown = await img.evaluate((element) => ({ currentSrc: (element as HTMLImageElement).currentSrc, width: element.getBoundingClientRect().width, height: element.getBoundingClientRect().height }));
  expect(shown.currentSrc).toMatch(new RegExp(`/content-images/${id}/\\d+$`));
  expect(Math.round(shown.width / shown.height * 100)).toBe(178);
  // Every source of the srcset answers 200 with an image, in the format the browser asks for.
  for (const width of [320, 640, 960, 1280, 1600]) {
    for (const accept of ['image/avif,image/webp,image/apng,image/*,*/*;q=0.8', 'image/jpeg']) {
      const response = await visitor.page.request.get(`${origin}/content-images/${id}/${width}`, { headers: { accept } });
      expect(response.status()).toBe(200);
      expect(response.headers()['content-type']).toMatch(/^image\/(avif|webp|jpeg)$/);
      if (accept === 'image/jpeg') expect(response.headers()['content-type']).toBe('image/jpeg');
    }
  }
  await visitor.context.close();
  await context.close();
}, 60_000);

test("a photo's orientation is applied before it is sent: the stored size is the one people see", async () => {
  const { project, owner } = await makeTeam(e2e.server);
  const { page, context } = await e2e.openSignedIn({ user: owner });
  // 600×400 pixels, EXIF orientation 6: shown 400 wide and 600 high.
  const jpeg = await sharp(Buffer.from(await pngBase64(600, 400), 'base64')).jpeg().withMetadata({ orientation: 6 }).toBuffer();
  const { dialog, text } = await openEditor(page, project);
  await pasteFiles(text, [{ name: 'phone.jpg', type: 'image/jpeg', base64: jpeg.toString('base64') }]);
  await page.waitForFunction((element) => /\/content-images\//.test((element as HTMLTextAreaElement).value), await text.elementHandle(), { timeout: 20_000 });
  await dialog.getByRole('button', { name: en('markdown_editor_save'), exact: true }).click();
  await dialog.waitFor({ state: 'detached', timeout: 10_000 });
  const stored = await e2e.server.trpc(owner.token).projects.description.get.query({ project: project.id });
  expect(stored.images.map((image) => [image.width, image.height, image.scale])).toEqual([[400, 600, 100]]);
  await context.close();
}, 40_000);

/** Payloads that have got past markdown sanitisers; each must come out inert. */
const xssCorpus = [
  '<script>window.__pwned = "script"</script>',
  '<img src="x" onerror="window.__pwned = \'img onerror\'">',
  '<img src=x onerror=window.__pwned=1//>',
  '<svg onload="window.__pwned = \'svg\'"><circle r="5"/></svg>',
  '<svg><script>window.__pwned = "svg script"</script></svg>',
  '<iframe src="javascript:window.top.__pwned=\'iframe\'"></iframe>',
  '<iframe srcdoc="<script>parent.__pwned=\'srcdoc\'</script>"></iframe>',
  '<object data="javascript:window.__pwned=\'object\'"></object>',
  '<embed src="javascript:window.__pwned=\'embed\'">',
  '<a href="javascript:window.__pwned=\'link\'">raw link</a>',
  '<a href="JaVaScRiPt:window.__pwned=1">mixed case</a>',
  '<a href="&#106;avascript:window.__pwned=1">entity</a>',
  '<a href="java\tscript:window.__pwned=1">tab</a>',
  '[md link](javascript:window.__pwned=1)',
  '[md entity](&#x6A;avascript:window.__pwned=1)',
  '![md img](javascript:window.__pwned=1)',
  '<a href="data:text/html,<script>window.__pwned=1</script>">data</a>',
  '<a href="vbscript:msgbox(1)">vb</a>',
  '<form action="javascript:window.__pwned=1"><button>go</button></form>',
  '<button formaction="javascript:window.__pwned=1">fa</button>',
  '<input autofocus onfocus="window.__pwned=\'focus\'">',
  '<input type="password" placeholder="Your password">',
  '- [x] done task\n- [ ] open task',
  '<details open ontoggle="window.__pwned=\'toggle\'"><summary>s</summary></details>',
  '<div style="background:url(javascript:window.__pwned=1)">styled</div>',
  '<style>body{display:none}</style>',
  '<link rel="stylesheet" href="https://evil.example/x.css">',
  '<meta http-equiv="refresh" content="0;url=javascript:window.__pwned=1">',
  '<base href="https://evil.example/">',
  '<img src="blob:https://evil.example/123" alt="foreign blob">',
  '<img srcset="javascript:window.__pwned=1 1x" src="x.png" alt="srcset">',
  '<video><source onerror="window.__pwned=\'video\'"></video>',
  '<audio src=x onerror="window.__pwned=\'audio\'"></audio>',
  '<body onload="window.__pwned=\'body\'">',
  '<marquee onstart="window.__pwned=\'marquee\'">m</marquee>',
  '<template><img src=x onerror="window.__pwned=\'template\'"></template>',
  '<div id="content">clobber main</div><form name="getElementById"></form>',
  '<a id="__pwned_anchor" name="location">named</a>',
  '"><img src=x onerror=window.__pwned=1>',
  '`<img src=x onerror=window.__pwned=1>`',
  '[^x]: <img src=x onerror="window.__pwned=\'footnote\'">\n\nRef[^x]',
  '# <img src=x onerror="window.__pwned=\'heading\'">',
  '[<img src=x onerror=window.__pwned=1>](https://example.com)',
  // Last: an unclosed <style> in MathML swallows what follows it in the browser's parser.
  '<noscript><p title="</noscript><img src=x onerror=window.__pwned=\'noscript\'>"></noscript>',
  '<math><mtext><table><mglyph><style><img src=x onerror="window.__pwned=\'mxss\'">',
];

test('XSS corpus: every payload comes out inert on the store page (zero findings)', async () => {
  const { project, owner } = await makeTeam(e2e.server);
  await makePublic(e2e.server, project, owner);
  await putDescription(owner, project, ['Corpus start', ...xssCorpus, 'Corpus end'].join('\n\n'));
  const { page, context } = await e2e.open();
  await visit(page, `/store/${project.id}`, 'page_store_project');
  const view = page.locator('main .markdown_view');
  await view.getByText('Corpus start').waitFor({ timeout: 10_000 });
  // The payloads were there to be sanitised: their harmless parts show.
  for (const shown of ['raw link', 'md link', 'clobber main', 'named', 'styled']) await view.getByText(shown, { exact: false }).first().waitFor();
  await page.waitForTimeout(500);
  const findings = await view.evaluate((root) => {
    const found: string[] = [];
    const forbidden = 'script, iframe, object, embed, form, style, link, meta, base, template, noscript, frame, frameset, applet, math, svg, button, textarea, select, dialog, input:not([type="checkbox"][disabled])';
    for (const element of root.querySelectorAll(forbidden)) found.push(`element <${element.tagName.toLowerCase()}>`);
    for (const element of root.querySelectorAll('*')) {
      for (const attribute of element.attributes) {
        const name = attribute.name.toLowerCase();
        const value = attribute.value.replace(/[\s\u0000-\u001f]/g, '').toLowerCase();
        if (name.startsWith('on')) found.push(`${element.tagName} ${name}`);
        if (name === 'style' || name === 'formaction' || name === 'srcdoc') found.push(`${element.tagName} ${name}`);
        if (['href', 'src', 'srcset', 'action', 'data', 'xlink:href'].includes(name) && /^(javascript|vbscript|data:text|blob):/.test(value)) found.push(`${element.tagName} ${name}=${attribute.value}`);
        if ((name === 'id' || name === 'name') && !attribute.value.startsWith('user-content-')) found.push(`${element.tagName} ${name}=${attribute.value}`);
      }
      if (element.tagName === 'A' && !(element.getAttribute('href') ?? '#').startsWith('#') && element.getAttribute('rel') !== 'ugc nofollow noopener noreferrer') found.push(`link without rel: ${element.outerHTML.slice(0, 80)}`);
    }
    return found;
  });
  expect(findings).toEqual([]);
  // A task list keeps its (disabled) checkboxes.
  expect(await view.locator('input[type="checkbox"][disabled]').count()).toBe(2);
  // Nothing ran, and the page's own elements are still the page's.
  expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(await page.evaluate(() => document.getElementById('content')?.tagName)).toBe('MAIN');
  expect(await page.evaluate(() => typeof document.getElementById)).toBe('function');
  await context.close();
}, 30_000);

test('footnotes and heading anchors work in the browser; the editor preview renders them as the page does', async () => {
  const { project, owner } = await makeTeam(e2e.server);
  await makePublic(e2e.server, project, owner);
  const markdown = `# Controls\n\nMove with WASD[^keys]. See [the controls](#controls).\n\n${'Filler paragraph.\n\n'.repeat(40)}[^keys]: Arrow keys work too.`;
  await putDescription(owner, project, markdown);
  const { page, context } = await e2e.open();
  await visit(page, `/store/${project.id}`, 'page_store_project');
  const view = page.locator('main .markdown_view');
  await view.locator('sup a').click();
  await page.waitForFunction(() => location.hash === '#user-content-fn-keys');
  expect(await page.evaluate(() => document.querySelector(':target')?.textContent)).toContain('Arrow keys work too.');
  await view.locator('section.footnotes a[aria-label]').click();
  await page.waitForFunction(() => location.hash === '#user-content-fn-ref-keys');
  await view.getByRole('link', { name: 'the controls' }).click();
  await page.waitForFunction(() => location.hash === '#user-content-controls');
  expect(await page.evaluate(() => document.querySelector(':target')?.tagName)).toBe('H3');
  await context.close();

  const signedIn = await e2e.openSignedIn({ user: owner });
  const { dialog } = await openEditor(signedIn.page, project);
  const preview = dialog.locator('.markdown_editor_preview .markdown_view');
  await preview.locator('section.footnotes').waitFor();
  const page1 = await signedIn.page.locator('main .markdown_view').evaluate((element) => element.innerHTML.replaceAll('user-content-', ''));
  const page2 = await preview.evaluate((element) => element.innerHTML.replaceAll('user-content-preview-', ''));
  // The same HTML but for the ids' prefix: the preview is what the page shows.
  expect(page2).toBe(page1);
  await signedIn.context.close();
}, 40_000);

for (const theme of ['light', 'dark'] as const) {
  test(`axe, ${theme} theme: the markdown editor with a pasted image, its preview and footnotes`, async () => {
    const { project, owner } = await makeTeam(e2e.server);
    await putDescription(owner, project, '# About\n\nA game[^1] with a [link](https://example.com).\n\n[^1]: A note.');
    const { page, context } = await e2e.openSignedIn({ user: owner, colorScheme: theme, storage: { theme } });
    const { dialog, text } = await openEditor(page, project);
    expect(await page.evaluate(() => document.documentElement.getAttribute('data-theme'))).toBe(theme);
    await pasteFiles(text, [{ name: 'shot.png', type: 'image/png', base64: await pngBase64(640, 360) }]);
    // While it uploads (its status line), then once it is in place.
    await dialog.locator('.pasted_image').first().waitFor();
    let violations = await seriousAccessibilityViolations(page);
    expect(violations.length, formatViolations(violations, `markdown editor uploading (${theme})`)).toBe(0);
    await dialog.locator('.markdown_editor_preview img[srcset]').waitFor({ timeout: 20_000 });
    await page.waitForTimeout(150);
    violations = await seriousAccessibilityViolations(page);
    expect(violations.length, formatViolations(violations, `markdown editor (${theme})`)).toBe(0);
    await context.close();
  }, 40_000);
}
