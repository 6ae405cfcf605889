import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { BrowserContext, Page } from 'playwright-core';
import { findFreePort } from '../support/free-port.ts';
import { uploadPackage } from '../support/packages.ts';
import { makeTeam, type Team } from '../support/projects.ts';
import { startE2E, type E2E } from './support/app.ts';

// ans() = 42: the game instantiates it with instantiateStreaming from its own origin.
const wasm = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 127, 3, 2, 1, 0, 7, 7, 1, 3, 97, 110, 115, 0, 0, 10, 6, 1, 4, 0, 65, 42, 11]);

/** A hostile game: it tries every way to the app's secrets, then shows it still runs and reports. */
function gameScript(appUrl: string): string {
  return `
(async () => {
  const report = { origin: String(self.origin) };
  const attempt = async (name, run) => {
    try { report[name] = await run(); } catch (error) { report[name] = 'threw ' + (error && error.name); }
  };
  await attempt('cookie', () => document.cookie);
  await attempt('localStorage', () => { localStorage.setItem('game', '1'); return localStorage.getItem('secret'); });
  await attempt('sessionStorage', () => sessionStorage.getItem('secret'));
  await attempt('indexedDB', () => new Promise((resolve, reject) => { const r = indexedDB.open('x'); r.onsuccess = () => resolve('opened'); r.onerror = () => reject(r.error); }));
  await attempt('parentDocument', () => parent.document.title);
  await attempt('parentCookie', () => parent.document.cookie);
  await attempt('parentStorage', () => parent.localStorage.getItem('secret'));
  await attempt('topLocation', () => top.location.href);
  await attempt('session', async () => {
    const response = await fetch(${JSON.stringify(appUrl)} + '/api/auth/session', { credentials: 'include' });
    return 'read ' + response.status + ' ' + (await response.text());
  });
  await attempt('sessionNoCors', async () => {
    const response = await fetch(${JSON.stringify(appUrl)} + '/api/auth/session', { credentials: 'include', mode: 'no-cors' });
    return response.type + ' ' + (await response.text()).length;
  });
  // What a game needs still works: its own files (fetch and wasm from an opaque origin), a canvas.
  await attempt('data', async () => (await (await fetch('../data/level.json')).json()).level);
  await attempt('wasm', async () => (await WebAssembly.instantiateStreaming(fetch('../game.wasm'))).instance.exports.ans());
  await attempt('pixel', () => {
    const context = document.getElementById('screen').getContext('2d');
    context.fillStyle = 'rgb(255, 0, 0)';
    context.fillRect(0, 0, 20, 20);
    return Array.from(context.getImageData(5, 5, 1, 1).data).join(',');
  });
  report.crossOriginIsolated = self.crossOriginIsolated;
  window.__report = report;
  if (parent !== self) parent.postMessage({ type: 'game-report', report }, '*');
})();
`;
}

const gameHtml = '<!doctype html><html><head><title>Hostile game</title></head><body><canvas id="screen" width="40" height="40"></canvas><script src="../game.js"></script></body></html>';

type World = { e2e: E2E; team: Team; playUrl: string };

async function setUp(env: Record<string, string>): Promise<World> {
  const e2e = await startE2E(env);
  const team = await makeTeam(e2e.server);
  const pkg = await uploadPackage(
    e2e.server,
    team.developer,
    team.project.id,
    { 'play/index.html': gameHtml, 'game.js': gameScript(e2e.server.url), 'game.wasm': wasm, 'data/level.json': '{"level": 7}' },
    { tags: ['os:web'], entrypoint: ['play', 'index.html'], compression: 1 },
  );
  const response = await e2e.server.fetch(`/api/projects/${team.project.id}/packages/${pkg.id}/play`, { token: team.tester.token });
  expect(response.status).toBe(200);
  const { url } = (await response.json()) as { url: string };
  return { e2e, team, playUrl: url };
}

/** The signed-in app page embeds the game from its play URL and waits for the game's report. */
async function playEmbedded(world: World): Promise<{ report: Record<string, unknown>; context: BrowserContext; page: Page; playCookies: string[] }> {
  const { context, page } = await world.e2e.openSignedIn({ user: world.team.tester });
  // Headers are read asynchronously: the last ones may still be on their way when the game reports.
  const playHeaders: Promise<string>[] = [];
  const playOrigin = new URL(world.playUrl).origin;
  page.on('request', (request) => {
    if (new URL(request.url()).origin !== playOrigin) return;
    playHeaders.push(request.allHeaders().then((headers) => headers.cookie ?? ''));
  });
  await page.goto('/');
  // The app's own secrets, where a same-origin script could read them.
  await page.evaluate(() => {
    localStorage.setItem('secret', 'app-local');
    sessionStorage.setItem('secret', 'app-session');
  });
  const appSession = await page.evaluate(async () => (await (await fetch('/api/auth/session', { credentials: 'include' })).json()) as { id: string | null });
  expect(appSession.id).toBeTruthy(); // the cookie is really there: the app itself reads its session
  const report = await page.evaluate(
    (src) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no report from the game')), 15_000);
        window.addEventListener('message', (event) => {
          if (event.data?.type !== 'game-report') return;
          clearTimeout(timer);
          resolve({ ...event.data.report, messageOrigin: event.origin });
        });
        const frame = document.createElement('iframe');
        frame.src = src;
        frame.width = '200';
        frame.height = '200';
        document.body.append(frame);
      }),
    world.playUrl,
  );
  const playCookies = await Promise.all(playHeaders);
  return { report, context, page, playCookies };
}

function expectIsolated(report: Record<string, unknown>): void {
  expect(report.origin).toBe('null'); // opaque origin from the CSP sandbox
  for (const key of ['cookie', 'localStorage', 'sessionStorage', 'indexedDB', 'parentDocument', 'parentCookie', 'parentStorage', 'topLocation']) {
    expect(String(report[key])).toMatch(/^threw /);
  }
  // Either the request fails (CORS) or nothing of it is readable; never the session.
  expect(String(report.session)).toMatch(/^threw /);
  expect(report.sessionNoCors).toBe('opaque 0');
  expect(JSON.stringify(report)).not.toContain('app-local');
  expect(JSON.stringify(report)).not.toContain('app-session');
  expect(JSON.stringify(report)).not.toContain('authToken');
  // ...and still runs: its own files, WebAssembly and a canvas.
  expect(report.data).toBe(7);
  expect(report.wasm).toBe(42);
  expect(report.pixel).toBe('255,0,0,255');
}

describe('default play origin (same host, another port)', () => {
  let world: World;
  beforeAll(async () => {
    world = await setUp({});
  }, 90_000);
  afterAll(async () => {
    await world?.e2e.close();
  });

  test('a game embedded in the signed-in app can read no cookie, storage, session or parent, yet runs', async () => {
    const { report, context, playCookies } = await playEmbedded(world);
    try {
      expect(new URL(world.playUrl).origin).not.toBe(new URL(world.e2e.server.url).origin);
      expectIsolated(report);
      expect(report.messageOrigin).toBe('null');
      // Cookies ignore ports: the browser does send the app's cookie along with the frame's navigation
      // here. The play server never reads it, and the page cannot (HttpOnly, opaque origin): the
      // session still stays out of the game's reach, as asserted above. Another host avoids even that.
      expect(playCookies.some((cookie) => cookie.includes('cartridge_session='))).toBe(true);
    } finally {
      await context.close();
    }
  }, 60_000);

  test('opened on its own (top level), the game is just as sandboxed', async () => {
    const { context, page } = await world.e2e.openSignedIn({ user: world.team.tester });
    try {
      await page.goto(world.playUrl);
      await page.waitForFunction(() => (window as unknown as { __report?: unknown }).__report !== undefined, undefined, { timeout: 15_000 });
      const report = (await page.evaluate(() => (window as unknown as { __report: Record<string, unknown> }).__report)) as Record<string, unknown>;
      expect(report.origin).toBe('null');
      for (const key of ['cookie', 'localStorage', 'sessionStorage']) expect(String(report[key])).toMatch(/^threw /);
      expect(String(report.session)).toMatch(/^threw /);
      expect(report.wasm).toBe(42);
      // COOP same-origin + COEP credentialless: on its own, a game gets SharedArrayBuffer (threads).
      expect(report.crossOriginIsolated).toBe(true);
    } finally {
      await context.close();
    }
  }, 60_000);
});

describe('play origin on another host (PLAY_ORIGIN=http://localhost:port)', () => {
  let world: World;
  beforeAll(async () => {
    const port = await findFreePort();
    world = await setUp({ PLAY_PORT: String(port), PLAY_ORIGIN: `http://localhost:${port}` });
  }, 90_000);
  afterAll(async () => {
    await world?.e2e.close();
  });

  test("the app's host-only session cookie is never even sent to the play origin", async () => {
    expect(new URL(world.playUrl).hostname).toBe('localhost');
    expect(new URL(world.e2e.server.url).hostname).toBe('127.0.0.1');
    const { report, context, playCookies } = await playEmbedded(world);
    try {
      expectIsolated(report);
      expect(playCookies.length).toBeGreaterThanOrEqual(4); // page, script, data, wasm
      expect(playCookies.filter((cookie) => cookie !== '')).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
