import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { addFile, addSymlink, bytesSource, createTree, packArchive, readAllFiles, readArchive } from '../../src/shared/archive/index.ts';
import { launchBrowser, openPage } from './support/browser.ts';

/** The archive core runs unchanged in Chromium, with WebCrypto and zstddec as its adapters. */
let browser: Browser;
let server: ReturnType<typeof Bun.serve>;
let packedInBun: Uint8Array;
const text = (value: string) => new TextEncoder().encode(value);

beforeAll(async () => {
  const bundle = await Bun.build({ entrypoints: ['src/shared/archive/index.ts'], target: 'browser', format: 'esm' });
  expect(bundle.success).toBe(true);
  const code = await bundle.outputs[0]!.text();
  const tree = createTree();
  addFile(tree, 'game/index.html', bytesSource(text('<h1>héllo</h1>'.repeat(5000))));
  addFile(tree, 'game/run.sh', bytesSource(text('#!/bin/sh\necho run\n')), { mode: 1 });
  addSymlink(tree, 'game/start', 'run.sh');
  const packed = packArchive(tree, { compression: 1 });
  packedInBun = new Uint8Array(await new Response(packed.stream).arrayBuffer());
  await packed.done;
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    routes: {
      '/': new Response('<!doctype html><title>archive</title>', { headers: { 'content-type': 'text/html' } }),
      '/archive.js': new Response(code, { headers: { 'content-type': 'text/javascript' } }),
      '/sample.crt': () => new Response(packedInBun as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'application/octet-stream' } }),
      '/missing.crt': new Response('gone', { status: 404 }),
    },
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  server?.stop(true);
});

test('Chromium reads a zstd archive packed by Bun, and packs one Bun reads back', async () => {
  const { page, context } = await openPage(browser, `http://127.0.0.1:${server.port}`);
  await page.goto('/');
  const result = await page.evaluate(async () => {
    const archive = await import('/archive.js' as string);
    const adapters = archive.createWebAdapters();
    const read = await archive.readArchiveFromUrl('/sample.crt', { adapters });
    const files: Map<string, Uint8Array> = await archive.readAllFiles(read);
    const html = new TextDecoder().decode(files.get('game/index.html'));
    let fetchError = '';
    try {
      await archive.readArchiveFromUrl('/missing.crt', { adapters });
    } catch (error) {
      fetchError = `${(error as { code: string }).code}:${(error as { status: number }).status}`;
    }
    const tree = archive.createTree();
    archive.addFile(tree, 'from/browser.txt', new Blob(['packed in Chromium ✓'.repeat(1000)]));
    archive.addFile(tree, 'from/tool', new Blob(['#!/bin/sh']), { mode: 1 });
    const packed = archive.packArchive(tree, { adapters, compression: 0 });
    const bytes = new Uint8Array(await new Response(packed.stream).arrayBuffer());
    return {
      hasWebCrypto: typeof crypto.subtle?.digest === 'function',
      htmlLength: html.length,
      htmlStart: html.slice(0, 14),
      names: [...files.keys()],
      fetchError,
      packed: Array.from(bytes),
    };
  });
  await context.close();
  expect(result.hasWebCrypto).toBe(true);
  expect(result.htmlStart).toBe('<h1>héllo</h1>');
  expect(result.htmlLength).toBe('<h1>héllo</h1>'.length * 5000);
  expect(result.names.sort()).toEqual(['game/index.html', 'game/run.sh']);
  expect(result.fetchError).toBe('archive_fetch_failed:404');
  const readBack = await readArchive(new Blob([new Uint8Array(result.packed)]).stream());
  const files = await readAllFiles(readBack);
  expect(new TextDecoder().decode(files.get('from/browser.txt'))).toBe('packed in Chromium ✓'.repeat(1000));
  const tool = readBack.index.root.entries.get('from');
  expect(tool?.kind === 'directory' && tool.entries.get('tool')?.mode).toBe(1);
});
