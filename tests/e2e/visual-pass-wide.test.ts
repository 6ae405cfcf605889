import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { en, visit } from './support/app.ts';
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
