import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { makeTeam } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { downloadUrl, uploadTree } from '../api/packages-downloads-support.ts';
import { launchBrowser, openPage } from './support/browser.ts';

/**
 * A page on another origin (as the app's reader or a third-party launcher would be) fetches a signed
 * archive URL of the real server with mode 'cors' and reads it with the shared reader.
 */
let browser: Browser;
let server: TestServer;
let page: ReturnType<typeof Bun.serve>;
let archiveUrl: string;
const html = '<h1>héllo</h1>'.repeat(20_000);

beforeAll(async () => {
  server = await startTestServer();
  const team = await makeTeam(server);
  const { pkg } = await uploadTree(
    server,
    team.owner,
    team.project.id,
    { files: { 'game/index.html': { content: html }, 'game/run.sh': { content: '#!/bin/sh\n', executable: true } }, symlinks: { 'game/start': 'run.sh' } },
    { compression: 1 },
  );
  archiveUrl = await downloadUrl(server, `/api/projects/${team.project.id}/packages/${pkg.id}/download`, team.tester.token);
  const bundle = await Bun.build({ entrypoints: ['src/shared/archive/index.ts'], target: 'browser', format: 'esm' });
  expect(bundle.success).toBe(true);
  const code = await bundle.outputs[0]!.text();
  page = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    routes: {
      '/': new Response('<!doctype html><title>reader</title>', { headers: { 'content-type': 'text/html' } }),
      '/archive.js': new Response(code, { headers: { 'content-type': 'text/javascript' } }),
    },
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  page?.stop(true);
  await server?.stop();
});

test('Chromium reads a package archive from its signed URL across origins; a forged URL is a clear 404', async () => {
  expect(new URL(archiveUrl).port).not.toBe(String(page.port));
  const { page: tab, context } = await openPage(browser, `http://127.0.0.1:${page.port}`);
  await tab.goto('/');
  const result = await tab.evaluate(
    async ({ url }) => {
      const archive = await import('/archive.js' as string);
      const adapters = archive.createWebAdapters();
      const read = await archive.readArchiveFromUrl(url, { adapters });
      const files: Map<string, Uint8Array> = await archive.readAllFiles(read);
      let forged = '';
      try {
        await archive.readArchiveFromUrl(url.replace(/\/archive\/(\d+)\/[^/]+\//, '/archive/$1/forged/'), { adapters });
      } catch (error) {
        forged = `${(error as { code: string }).code}:${(error as { status: number }).status}`;
      }
      return {
        names: [...files.keys()].sort(),
        html: new TextDecoder().decode(files.get('game/index.html')),
        runMode: read.index.root.entries.get('game').entries.get('run.sh').mode,
        forged,
      };
    },
    { url: archiveUrl },
  );
  await context.close();
  expect(result.names).toEqual(['game/index.html', 'game/run.sh']);
  expect(result.html).toBe(html);
  expect(result.runMode).toBe(1);
  expect(result.forged).toBe('archive_fetch_failed:404');
});
