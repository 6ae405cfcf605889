import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startTestServer, type TestServer } from '../support/server.ts';

let branded: TestServer;
let plain: TestServer;
beforeAll(async () => {
  [branded, plain] = await Promise.all([
    startTestServer({ APP_NAME: 'Pixel Forge', SOCIAL_LINKS: 'Forum=https://forum.example.com/, Mastodon=https://social.example/@forge', REPORT_EMAIL: 'abuse@pixelforge.example', ORPHAN_PACKAGE_DAYS: '2.5' }),
    startTestServer(),
  ]);
});
afterAll(() => Promise.all([branded.stop(), plain.stop()]));

test('GET /api/instance answers APP_NAME, SOCIAL_LINKS, REPORT_EMAIL and ORPHAN_PACKAGE_DAYS to anyone', async () => {
  const response = await branded.fetch('/api/instance');
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({
    appName: 'Pixel Forge',
    socialLinks: [
      { name: 'Forum', href: 'https://forum.example.com/' },
      { name: 'Mastodon', href: 'https://social.example/@forge' },
    ],
    version: '0.0.1',
    reportEmail: 'abuse@pixelforge.example',
    signInProviders: [],
    linkProviders: [],
    orphanPackageDays: 2.5,
  });
});

test('tRPC instance.info is the same service', async () => {
  expect(await branded.trpc().instance.info.query()).toEqual(await (await branded.fetch('/api/instance')).json());
  expect(await plain.trpc().instance.info.query()).toEqual({ appName: 'Cartridge', socialLinks: [], version: '0.0.1', reportEmail: null, signInProviders: [], linkProviders: [], orphanPackageDays: 7 });
});
