import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { en, openDialog, startE2E, visit, type E2E } from './support/app.ts';

/** Spec §2 dialogs, issue 4: usable with the keyboard alone (focus inside, trapped, Escape, focus returns). */
let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);
afterAll(async () => {
  await e2e?.close();
});

async function focused(page: Page) {
  return page.evaluate(() => {
    const active = document.activeElement;
    const dialog = document.querySelector('dialog[open]');
    return {
      tag: active?.tagName.toLowerCase() ?? null,
      text: (active?.textContent ?? '').trim(),
      inDialog: !!dialog && !!active && dialog.contains(active),
    };
  });
}

/** Presses Tab until the button with this text has focus (keyboard only, no clicks). */
async function tabTo(page: Page, text: string, limit = 40): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const now = await focused(page);
    if (now.tag === 'button' && now.text === text) return;
  }
  throw new Error(`Tab never reached the button '${text}' in ${limit} presses`);
}

async function result(page: Page): Promise<string> {
  return ((await page.locator('[data-testid="experiment-result"]').textContent()) ?? '').trim();
}

test('confirm dialog by keyboard: opens, focus inside, Tab trapped, Escape closes, focus returns', async () => {
  const { page, context } = await e2e.open();
  await visit(page, '/experiment', 'page_experiment');
  await tabTo(page, en('experiment_show_confirm'));
  await page.keyboard.press('Enter');
  const dialog = openDialog(page);
  await dialog.waitFor({ timeout: 5_000 });
  expect(await dialog.getAttribute('aria-modal')).toBe('true');
  const labelledBy = await dialog.getAttribute('aria-labelledby');
  expect(labelledBy).toBeTruthy();
  expect(await page.locator(`[id="${labelledBy}"]`).textContent()).toBe(en('dialog_confirm_title'));
  // Default focus: OK (not a dangerous confirmation).
  expect(await focused(page)).toEqual({ tag: 'button', text: en('dialog_ok'), inDialog: true });

  // Tab and Shift+Tab cycle inside the dialog only: focus never lands outside it (on the page behind,
  // or on <body> when it leaves the document for the browser's own UI). Escapes are collected and
  // asserted at the end, so the rest of the keyboard flow is still checked.
  const visited = new Set<string>();
  const escapes: string[] = [];
  for (const key of ['Tab', 'Shift+Tab']) {
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press(key);
      const now = await focused(page);
      if (!now.inDialog) escapes.push(`${key} #${i + 1}: focus on <${now.tag}> outside the dialog`);
      else visited.add(now.text);
    }
  }
  expect([...visited].sort()).toEqual([en('dialog_cancel'), en('dialog_ok')].sort());
  // Back on a known element for what follows.
  await dialog.getByRole('button', { name: en('dialog_ok'), exact: true }).focus();

  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached', timeout: 5_000 });
  expect(await focused(page)).toEqual({ tag: 'button', text: en('experiment_show_confirm'), inDialog: false });
  expect(await result(page)).toContain('false');

  // Space reopens it from the focused opener; Enter on the default button confirms.
  await page.keyboard.press('Space');
  await dialog.waitFor({ timeout: 5_000 });
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'detached', timeout: 5_000 });
  expect(await result(page)).toContain('true');
  expect((await focused(page)).text).toBe(en('experiment_show_confirm'));
  await context.close();
  expect(escapes).toEqual([]);
}, 30_000);

test('dangerous confirmation focuses Cancel; a prompt takes typed text and Enter', async () => {
  const { page, context } = await e2e.open();
  await visit(page, '/experiment', 'page_experiment');
  await tabTo(page, en('experiment_show_danger'));
  await page.keyboard.press('Enter');
  const dialog = openDialog(page);
  await dialog.waitFor({ timeout: 5_000 });
  expect(await dialog.getAttribute('role')).toBe('alertdialog');
  expect(await focused(page)).toEqual({ tag: 'button', text: en('dialog_cancel'), inDialog: true });
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'detached', timeout: 5_000 });
  expect(await result(page)).toContain('false');
  expect((await focused(page)).text).toBe(en('experiment_show_danger'));

  await tabTo(page, en('experiment_show_prompt'));
  await page.keyboard.press('Enter');
  await dialog.waitFor({ timeout: 5_000 });
  expect(await page.evaluate(() => document.activeElement?.tagName.toLowerCase())).toBe('input');
  // Empty is refused with a message; typing then Enter submits.
  await page.keyboard.press('Enter');
  await dialog.locator('[role="alert"]').waitFor({ timeout: 5_000 });
  expect(await dialog.locator('[role="alert"]').textContent()).toBe(en('dialog_required'));
  await page.keyboard.type('typed by keyboard');
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'detached', timeout: 5_000 });
  expect(await result(page)).toContain('typed by keyboard');
  expect((await focused(page)).text).toBe(en('experiment_show_prompt'));
  await context.close();
}, 30_000);
