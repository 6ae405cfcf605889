import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { defineAccessibilityTests } from './support/a11y.ts';
import { seriousAccessibilityViolations } from './support/axe.ts';
import { launchBrowser } from './support/browser.ts';

/** axe-core on every screen of issue 4 in the light theme (a11y-dark for the dark one). */
defineAccessibilityTests('light');

/** The checker itself: a page with known serious problems must be reported, so a pass means something. */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 30_000);
afterAll(async () => {
  await browser?.close();
});

test('axe reports serious violations on a deliberately broken page', async () => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.setContent(
      '<!doctype html><html lang="en"><title>broken</title><main><p style="color:#777;background:#888">low contrast text</p>' +
        '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">' +
        '<button></button></main></html>',
    );
    const ids = (await seriousAccessibilityViolations(page)).map((violation) => violation.id).sort();
    expect(ids).toEqual(expect.arrayContaining(['button-name', 'color-contrast', 'image-alt']));
  } finally {
    await context.close();
  }
}, 30_000);
