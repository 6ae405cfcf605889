import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags that keep Debian Chromium from reaching out to the (closed) network and from needing a sandbox as root. */
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export function chromiumAvailable(): boolean {
  return existsSync(chromiumPath);
}

export async function launchBrowser(): Promise<Browser> {
  if (!chromiumAvailable()) throw new Error(`Chromium not found at ${chromiumPath}: apt-get install -y chromium`);
  return chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, headless: true });
}

export type BrowserSession = { context: BrowserContext; page: Page };

export async function openPage(browser: Browser, baseURL: string, options: { locale?: string; colorScheme?: 'light' | 'dark' } = {}): Promise<BrowserSession> {
  const context = await browser.newContext({ baseURL, locale: options.locale ?? 'en-US', colorScheme: options.colorScheme ?? 'light' });
  const page = await context.newPage();
  return { context, page };
}
