import type { BrowserContext, Page } from 'playwright-core';
import type { TestUser } from '../../support/accounts.ts';
import { startTestProxy, type TestProxy } from '../../support/http-proxy.ts';
import { addSessionCookie, startE2E, type E2E } from './app.ts';

/**
 * An e2e server whose every request passes a counting proxy (PUBLIC_URL names it, so the upload URLs
 * the server hands out lead through it too): `proxy.partBytes` is what the browser really sent in part
 * PUTs, whatever the body type (Chromium reports no request body for Blob bodies).
 */
export type ProxiedE2E = {
  e2e: E2E;
  proxy: TestProxy;
  /** A signed-in page on the proxy's origin. */
  openSignedIn(user: TestUser): Promise<{ context: BrowserContext; page: Page }>;
  close(): Promise<void>;
};

export async function startProxiedE2E(env: Record<string, string> = {}): Promise<ProxiedE2E> {
  const proxy = startTestProxy();
  const e2e = await startE2E({ ...env, PUBLIC_URL: proxy.url });
  proxy.target = e2e.server.url;
  return {
    e2e,
    proxy,
    async openSignedIn(user) {
      const context = await e2e.browser.newContext({ locale: 'en-US', colorScheme: 'light', viewport: { width: 1280, height: 900 }, baseURL: proxy.url });
      await addSessionCookie(context, proxy.url, user);
      return { context, page: await context.newPage() };
    },
    async close() {
      await e2e.close();
      proxy.stop();
    },
  };
}
