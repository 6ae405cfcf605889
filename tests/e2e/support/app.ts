import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Locator, Page } from 'playwright-core';
import { registerUser, type TestUser } from '../../support/accounts.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { launchBrowser } from './browser.ts';

/**
 * One e2e file's world: the real server (fresh database) and one Chromium, shared by the file's tests;
 * each test opens its own context (cookies and storage of its own). close() ends every context, the
 * browser and the server, so no Chromium child is left behind.
 */
export type E2E = {
  server: TestServer;
  browser: Browser;
  baseURL: string;
  /** A fresh context and page; English, light colour scheme and a 1280×800 viewport unless told otherwise. */
  open(options?: OpenOptions): Promise<{ context: BrowserContext; page: Page }>;
  /** A user made through the API and a page already signed in as that user (session cookie). */
  openSignedIn(options?: OpenOptions & { user?: TestUser }): Promise<{ context: BrowserContext; page: Page; user: TestUser }>;
  close(): Promise<void>;
};

export type OpenOptions = Omit<BrowserContextOptions, 'baseURL'> & {
  /** Put into localStorage before any page script runs on the context's first document (reloads keep what the app stored). */
  storage?: Record<string, string>;
};

export async function startE2E(env: Record<string, string> = {}): Promise<E2E> {
  // The browser first: a missing Chromium fails with its apt hint before anything else starts.
  const browser = await launchBrowser();
  let server: TestServer | undefined;
  try {
    server = await startTestServer(env);
    // The server bundles the client on its first request: pay that here, not in the first test.
    await warmUp(server.url);
  } catch (error) {
    await browser.close();
    await server?.stop();
    throw error;
  }
  const contexts = new Set<BrowserContext>();
  const open = async (options: OpenOptions = {}) => {
    const { storage, ...contextOptions } = options;
    const context = await browser.newContext({
      locale: 'en-US',
      colorScheme: 'light',
      viewport: { width: 1280, height: 800 },
      ...contextOptions,
      baseURL: server.url,
    });
    contexts.add(context);
    context.on('close', () => contexts.delete(context));
    if (storage) {
      // Only once per context (first document): later reloads must see what the app stored itself.
      await context.addInitScript((entries: Record<string, string>) => {
        if (sessionStorage.getItem('__e2e_seeded')) return;
        sessionStorage.setItem('__e2e_seeded', '1');
        for (const [key, value] of Object.entries(entries)) localStorage.setItem(key, value);
      }, storage);
    }
    const page = await context.newPage();
    return { context, page };
  };
  return {
    server,
    browser,
    baseURL: server.url,
    open,
    async openSignedIn(options = {}) {
      const { user: given, ...rest } = options;
      const user = given ?? (await registerUser(server));
      const { context, page } = await open(rest);
      await addSessionCookie(context, server.url, user);
      return { context, page, user };
    },
    async close() {
      for (const context of [...contexts]) await context.close().catch(() => {});
      await browser.close().catch(() => {});
      await server.stop();
    },
  };
}

/** Fetches the page and its scripts and styles once: the server bundles the client on its first request. */
export async function warmUp(baseURL: string): Promise<void> {
  const html = await (await fetch(baseURL)).text();
  for (const match of html.matchAll(/(?:src|href)="(\/[^"]+\.(?:js|css))"/g)) await (await fetch(new URL(match[1]!, baseURL))).arrayBuffer();
}

export async function addSessionCookie(context: BrowserContext, baseURL: string, user: Pick<TestUser, 'cookie'>): Promise<void> {
  const [name, ...value] = user.cookie.split('=');
  if (!name || value.length === 0) throw new Error(`registerUser gave no session cookie (got '${user.cookie}')`);
  await context.addCookies([{ name, value: value.join('='), url: baseURL }]);
}

/** Waits until the session is known and a screen (not the 'checking your session' placeholder) shows. */
export async function waitForScreen(page: Page, pageClass?: string): Promise<void> {
  const selector = pageClass ? `main#content.${pageClass}` : 'main#content.page:not(.page_processing)';
  // main#content exists only once the session is known (else .page_processing) and the screen's lazy
  // chunk has loaded (Suspense shows its fallback outside main); the screen's own data may still load.
  await page.locator(selector).first().waitFor({ state: 'visible', timeout: 10_000 });
}

/** Goes to a path and waits for its screen. */
export async function visit(page: Page, path: string, pageClass?: string): Promise<void> {
  await page.goto(path, { waitUntil: 'domcontentloaded' });
  await waitForScreen(page, pageClass);
}

export const rtlLanguage = 'ar';

const localesDir = join(import.meta.dir, '..', '..', '..', 'locales');
const cache = new Map<string, Record<string, string>>();

/** A message of locales/{lang}.json as written there (placeholders left as {name}). */
export function message(lang: string, key: string): string {
  let table = cache.get(lang);
  if (!table) {
    table = JSON.parse(readFileSync(join(localesDir, `${lang}.json`), 'utf8')) as Record<string, string>;
    cache.set(lang, table);
  }
  const value = table[key];
  if (typeof value !== 'string') throw new Error(`locales/${lang}.json has no message ${key}`);
  return value;
}

/** English message text, with {placeholders} filled in. */
export function en(key: string, values: Record<string, string> = {}): string {
  return message('en', key).replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? `{${name}}`);
}

/** The language switcher (a select listing every language code). */
export function languageSelect(page: Page) {
  return page.locator('header select:has(option[value="pt-BR"])');
}

/** The theme switcher (a select with light, dark and system). */
export function themeSelect(page: Page) {
  return page.locator('header select:has(option[value="system"])');
}

/** The open modal dialog. */
export function openDialog(page: Page) {
  return page.locator('dialog[open]');
}

/** The page's section headed by the English message `headingKey`. */
export function section(page: Page, headingKey: string): Locator {
  return page.locator('main section', { has: page.getByRole('heading', { name: en(headingKey), exact: true }) });
}

/** Collects uncaught page errors and console errors, to print when a test fails. */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (entry) => {
    if (entry.type() === 'error') problems.push(`console.error: ${entry.text()}`);
  });
  return problems;
}
