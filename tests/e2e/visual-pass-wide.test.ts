import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { en, message, visit } from './support/app.ts';
import { formatViolations, seriousAccessibilityViolations } from './support/axe.ts';
import { artifacts, themes, useVisualPass, visualPassTests } from './support/visual-pass.ts';

/** The visual pass at 1280 px (support/visual-pass.ts), the logo and icons, and the new package dialog. */
const pass = useVisualPass();
visualPassTests(pass, 1280);

/** The logo: an inline SVG mark beside the instance's name in the header, and the tab icons (SVG, ICO, home screen) served. */
test('the header shows the SVG logo; the favicon, its ICO fallback and the home-screen icon are served', async () => {
  const { page, context } = await pass.e2e.open();
  try {
    await visit(page, '/', 'page_home');
    const brand = page.locator('header .brand');
    expect(await brand.locator('svg.logo_mark').count()).toBe(1);
    expect(await brand.locator('svg.logo_mark').getAttribute('aria-hidden')).toBe('true');
    expect(await brand.textContent()).toBe('Cartridge');
    const icons = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLLinkElement>('link[rel="icon"], link[rel="apple-touch-icon"]')].map((link) => ({ rel: link.rel, type: link.type, href: link.href })),
    );
    expect(icons.map((icon) => icon.rel)).toEqual(['icon', 'icon', 'apple-touch-icon']);
    const expected = ['image/x-icon', 'image/svg+xml', 'image/png'];
    for (const [index, icon] of icons.entries()) {
      const response = await fetch(icon.href);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type') ?? '').toStartWith(expected[index]!);
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  } finally {
    await context.close();
  }
}, 30_000);

/** The new package dialog at 1280×800: the tags fit above the files, so the drop area shows without scrolling. */
for (const theme of themes) {
  test(`new package dialog at 1280×800 (${theme}): the drop area is above the fold`, async () => {
    const { page, context } = await pass.e2e.openSignedIn({ viewport: { width: 1280, height: 800 }, colorScheme: theme, storage: { theme }, user: pass.team.owner });
    try {
      await visit(page, `/projects/${pass.team.project.id}/branches/${pass.branch.id}`, 'page_branch');
      await page.getByRole('button', { name: en('branch_publish_new'), exact: true }).click();
      await page.locator('dialog[open]').first().getByRole('button', { name: en('upload_new_package'), exact: true }).click();
      const dialog = page.locator('dialog[open]', { has: page.getByRole('heading', { name: en('new_package_title'), exact: true }) });
      await dialog.waitFor({ timeout: 10_000 });
      await page.waitForTimeout(200);
      await page.screenshot({ path: join(artifacts, `new-package-dialog-1280-${theme}-en.png`) });
      const drop = await dialog.getByTestId('file-tree').boundingBox();
      expect(drop).not.toBeNull();
      // The drop area starts well inside the 800 px viewport, with room to see it (not a sliver at the bottom).
      expect(drop!.y + Math.min(drop!.height, 80)).toBeLessThanOrEqual(800);
      let violations = await seriousAccessibilityViolations(page);
      expect(formatViolations(violations, `new package dialog (${theme})`)).toBe(`new package dialog (${theme}): no serious or critical violations`);

      // With files: compact rows, one menu button each; the open menu is screenshotted and checked too.
      await dialog.getByTestId('new-package-files-input').setInputFiles([
        { name: 'game.x86_64', mimeType: 'application/octet-stream', buffer: Buffer.from('ELF') },
        { name: 'README.txt', mimeType: 'text/plain', buffer: Buffer.from('Read me') },
        { name: 'data.pak', mimeType: 'application/octet-stream', buffer: Buffer.alloc(4096) },
      ]);
      const row = dialog.locator('tr[data-path="game.x86_64"]');
      await row.waitFor();
      expect(await row.getByRole('button').count()).toBe(1);
      await row.getByRole('button', { name: en('row_menu_label', { name: 'game.x86_64' }), exact: true }).click();
      await page.getByRole('menu').waitFor();
      await page.screenshot({ path: join(artifacts, `new-package-dialog-menu-1280-${theme}-en.png`) });
      violations = await seriousAccessibilityViolations(page);
      expect(formatViolations(violations, `row menu (${theme})`)).toBe(`row menu (${theme}): no serious or critical violations`);
    } finally {
      await context.close();
    }
  }, 60_000);
}

/**
 * Issue 29: a long display name (15 characters) kept the header on two rows at 1280 px, and once it was
 * one row the name was cut (in Russian to two letters). The switchers are compact now (the language
 * code, the theme's icon): in every language and both themes the header is one row, nothing overflows
 * sideways, and a 15-character name, even one of the widest letter, shows whole. One screenshot of the
 * header per language and theme.
 */
test('the header at 1280 px stays one row and shows a 15-character display name whole, in every language and theme', async () => {
  const { registerUser } = await import('../support/accounts.ts');
  const { languageCodes } = await import('../../src/shared/i18n/languages.ts');
  for (const name of ['Fifteen Chars X', 'WWWWWWWWWWWWWWW']) {
    expect(name).toHaveLength(15);
    const user = await registerUser(pass.e2e.server);
    expect((await pass.e2e.server.fetch('/api/users/me', { method: 'PATCH', token: user.token, json: { title: name } })).status).toBe(200);
    for (const theme of themes) {
      for (const lang of languageCodes) {
        const { page, context } = await pass.e2e.openSignedIn({ user, viewport: { width: 1280, height: 800 }, colorScheme: theme, storage: { lang, theme } });
        try {
          await visit(page, '/projects', 'page_projects');
          await page.locator('header .header_user_name', { hasText: name }).waitFor();
          await page.evaluate(() => document.fonts.ready);
          const layout = await page.evaluate(() => {
            const parts = [...document.querySelectorAll('header .brand, header .nav_link, header select, header .header_user, header .header_account .button')].map((element) => element.getBoundingClientRect());
            const shown = document.querySelector<HTMLElement>('header .header_user_name')!;
            // Where the text itself lies: one line, within the element (an ellipsis or a wrap would show here).
            const range = document.createRange();
            range.selectNodeContents(shown);
            const text = range.getBoundingClientRect();
            return {
              top: Math.min(...parts.map((rect) => rect.top)),
              bottom: Math.max(...parts.map((rect) => rect.bottom)),
              tallest: Math.max(...parts.map((rect) => rect.height)),
              header: document.querySelector('header')!.getBoundingClientRect().height,
              pageWidth: document.documentElement.scrollWidth,
              theme: document.documentElement.dataset.theme,
              nameText: shown.textContent,
              nameScroll: shown.scrollWidth,
              nameWidth: shown.clientWidth,
              nameScrollHeight: shown.scrollHeight,
              nameHeight: shown.clientHeight,
              textLines: new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size,
              textWidth: text.width,
              boxWidth: shown.getBoundingClientRect().width,
            };
          });
          const where = `${lang}, ${theme}, ${name}: ${JSON.stringify(layout)}`;
          expect(layout.theme, where).toBe(theme);
          // One row: every part lies within the height of the tallest one.
          expect(layout.bottom - layout.top, where).toBeLessThanOrEqual(layout.tallest + 2);
          expect(layout.header, where).toBeLessThan(2 * layout.tallest);
          expect(layout.pageWidth, where).toBe(1280);
          // The name whole, on one line: nothing of it hidden behind an ellipsis.
          expect(layout.nameText, where).toBe(name);
          expect(layout.nameWidth, where).toBeGreaterThan(0);
          expect(layout.nameScroll, where).toBeLessThanOrEqual(layout.nameWidth);
          expect(layout.nameScrollHeight, where).toBeLessThanOrEqual(layout.nameHeight + 1);
          expect(layout.textLines, where).toBe(1);
          expect(layout.textWidth, where).toBeLessThanOrEqual(layout.boxWidth + 0.5);
          if (name === 'Fifteen Chars X') {
            const file = theme === 'light' ? `header-${lang}.png` : `header-${lang}-${theme}.png`;
            await page.locator('header').screenshot({ path: join(artifacts, file) });
          }
        } finally {
          await context.close();
        }
      }
    }
  }
  // The sentence is still there for screen readers (and as the tooltip).
  const { page, context } = await pass.e2e.openSignedIn({ user: pass.team.owner });
  await visit(page, '/projects', 'page_projects');
  const user = page.locator('header .header_user');
  await user.waitFor();
  expect(await user.getAttribute('title')).toBe(en('auth_signed_in_as', { name: pass.team.owner.name }));
  expect(await user.locator('.visually_hidden').textContent()).toBe(en('auth_signed_in_as', { name: pass.team.owner.name }));
  await context.close();
}, 300_000);

/**
 * Below 1280 px a name too long for its room may end in '…' (the full sentence is the tooltip); the
 * header still fits the width.
 */
test('at 1180 px a long display name ends in an ellipsis and the header does not overflow', async () => {
  const { registerUser } = await import('../support/accounts.ts');
  const name = 'W'.repeat(40);
  const user = await registerUser(pass.e2e.server);
  expect((await pass.e2e.server.fetch('/api/users/me', { method: 'PATCH', token: user.token, json: { title: name } })).status).toBe(200);
  const { page, context } = await pass.e2e.openSignedIn({ user, viewport: { width: 1180, height: 800 }, storage: { lang: 'ru' } });
  try {
    await visit(page, '/projects', 'page_projects');
    const shown = page.locator('header .header_user_name', { hasText: name });
    await shown.waitFor();
    const layout = await shown.evaluate((element) => ({ scroll: element.scrollWidth, width: element.clientWidth, overflow: getComputedStyle(element).textOverflow, pageWidth: document.documentElement.scrollWidth }));
    expect(layout.pageWidth, JSON.stringify(layout)).toBe(1180);
    expect(layout.width, JSON.stringify(layout)).toBeGreaterThan(0);
    expect(layout.scroll, JSON.stringify(layout)).toBeGreaterThan(layout.width);
    expect(layout.overflow).toBe('ellipsis');
    expect(await page.locator('header .header_user').getAttribute('title')).toBe(message('ru', 'auth_signed_in_as').replace('{name}', name));
  } finally {
    await context.close();
  }
}, 30_000);

/**
 * Issue 29: at 1280×800 the New version dialog's Publish button fell below the visible area. The
 * dialog's body scrolls under a footer that stays in view, in both themes, however long the form gets.
 */
for (const theme of themes) {
  test(`new version dialog at 1280×800 (${theme}): Publish is within the viewport, also with a long form`, async () => {
    const { page, context } = await pass.e2e.openSignedIn({ viewport: { width: 1280, height: 800 }, colorScheme: theme, storage: { theme }, user: pass.team.owner });
    try {
      await visit(page, `/projects/${pass.team.project.id}/branches/${pass.branch.id}`, 'page_branch');
      await page.getByRole('button', { name: en('branch_publish_new'), exact: true }).click();
      const dialog = page.locator('dialog[open]');
      await dialog.getByLabel(en('version_title_label'), { exact: true }).waitFor();
      const publish = dialog.getByRole('button', { name: en('version_publish'), exact: true });
      /** Inside the 800 px viewport and not covered: the button is what a click at its middle reaches. */
      const reachable = () =>
        publish.evaluate((button) => {
          const rect = button.getBoundingClientRect();
          const hit = document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
          return { top: Math.round(rect.top), bottom: Math.round(rect.bottom), viewport: innerHeight, hit: hit === button || button.contains(hit), dialog: Math.round(button.closest('dialog')!.getBoundingClientRect().bottom) };
        });
      let shown = await reachable();
      expect(shown.bottom, JSON.stringify(shown)).toBeLessThanOrEqual(800);
      expect(shown.top, JSON.stringify(shown)).toBeGreaterThanOrEqual(0);
      expect(shown.hit, JSON.stringify(shown)).toBe(true);
      await page.screenshot({ path: join(artifacts, `new-version-dialog-1280-${theme}-en.png`) });
      // A long description and a tall text area: the body scrolls, the footer stays.
      const description = dialog.getByLabel(en('version_description_label'), { exact: true });
      await description.fill(Array.from({ length: 60 }, (_, line) => `Line ${line + 1}`).join('\n'));
      await description.evaluate((area) => ((area as HTMLTextAreaElement).style.blockSize = '900px'));
      shown = await reachable();
      expect(shown.bottom, JSON.stringify(shown)).toBeLessThanOrEqual(800);
      expect(shown.hit, JSON.stringify(shown)).toBe(true);
      await page.screenshot({ path: join(artifacts, `new-version-dialog-long-1280-${theme}-en.png`) });
      const violations = await seriousAccessibilityViolations(page);
      expect(formatViolations(violations, `new version dialog (${theme})`)).toBe(`new version dialog (${theme}): no serious or critical violations`);
    } finally {
      await context.close();
    }
  }, 60_000);
}
