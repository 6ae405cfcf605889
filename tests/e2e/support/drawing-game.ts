import type { BrowserContext, Page } from 'playwright-core';

/**
 * A tiny web game for the play tests: draws on a canvas, tries the app's storage, and tells the
 * embedding page what it saw. Upload `drawingGameFiles(title)` as a web package with entrypoint
 * index.html; `listenToGame` before the page loads, then `waitForGameMessages`.
 */
const gameScript = `
const context = document.getElementById('screen').getContext('2d');
context.fillStyle = 'rgb(0, 128, 255)';
context.fillRect(0, 0, 40, 40);
const pixel = Array.from(context.getImageData(5, 5, 1, 1).data).join(',');
let storage;
try { storage = 'read ' + localStorage.getItem('secret'); } catch (error) { storage = 'failed ' + error.name; }
parent.postMessage({ type: 'drawn', pixel, storage }, '*');
`;

export function drawingGameFiles(title: string): Record<'index.html' | 'game.js', string> {
  const html = `<!doctype html><html><head><title>${title}</title></head><body><canvas id="screen" width="40" height="40"></canvas><script src="game.js"></script></body></html>`;
  return { 'index.html': html, 'game.js': gameScript };
}

export type GameMessage = { type: string; pixel: string; storage: string; origin: string };

/** Collects the game's messages on the app page (its top document only) from its first script on. */
export async function listenToGame(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    if (window.top !== window) return;
    const messages: unknown[] = [];
    (window as unknown as { gameMessages: unknown[] }).gameMessages = messages;
    window.addEventListener('message', (event) => {
      if (event.data?.type === 'drawn') messages.push({ ...event.data, origin: event.origin });
    });
  });
}

/** The game's messages once there are at least `count`. */
export async function waitForGameMessages(page: Page, count: number): Promise<GameMessage[]> {
  await page.waitForFunction((n) => ((window as unknown as { gameMessages?: unknown[] }).gameMessages?.length ?? 0) >= n, count, { timeout: 15_000 });
  return page.evaluate(() => (window as unknown as { gameMessages: GameMessage[] }).gameMessages);
}
