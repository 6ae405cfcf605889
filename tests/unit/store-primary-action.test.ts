import { describe, expect, test } from 'bun:test';
import { chooseStoreOffers, type StoreOffer, type StoreVisitor } from '../../src/client/routes/store/primary-action.ts';
import { platformFromHints } from '../../src/client/lib/visitor-platform.ts';
import type { StoreProject } from '../../src/shared/schemas/store.ts';

/**
 * The store page's card (issues 19 and 29): the visitor's system from what the browser says, then every
 * way this visitor can play, least effort first (browser, cloud, local app, download).
 */

const ua = {
  windows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
  linux: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
  mac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15',
  android: 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36',
  iphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  chromebook: 'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
  firefoxLinux: 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0',
};

describe('platformFromHints', () => {
  test.each([
    [{ userAgentDataPlatform: 'Windows', userAgent: ua.windows, platform: 'Win32' }, 'windows'],
    [{ userAgentDataPlatform: 'macOS', userAgent: ua.mac, platform: 'MacIntel' }, 'macos'],
    [{ userAgentDataPlatform: 'Linux', userAgent: ua.linux, platform: 'Linux x86_64' }, 'linux'],
    [{ userAgentDataPlatform: 'Android', userAgent: ua.android, platform: 'Linux armv8l' }, 'android'],
    // No client hints (Firefox, Safari): the user agent string, Android before Linux.
    [{ userAgent: ua.firefoxLinux, platform: 'Linux x86_64' }, 'linux'],
    [{ userAgent: ua.android, platform: 'Linux armv8l' }, 'android'],
    [{ userAgent: ua.iphone, platform: 'iPhone' }, 'ios'],
    [{ userAgent: ua.mac, platform: 'MacIntel' }, 'macos'],
    // iPadOS asks for desktop pages as a Mac; its touch screen gives it away.
    [{ userAgent: ua.mac, platform: 'MacIntel', maxTouchPoints: 5 }, 'ios'],
    // A Chromebook gets no download of its own (its web package or cloud play instead).
    [{ userAgentDataPlatform: 'Chrome OS', userAgent: ua.chromebook }, null],
    [{ userAgent: ua.chromebook, platform: 'Linux x86_64' }, null],
    // Only navigator.platform.
    [{ platform: 'Win32' }, 'windows'],
    [{ userAgent: 'SomeBot/1.0' }, null],
    [{}, null],
  ] as const)('%o → %p', (hints, expected) => {
    expect(platformFromHints(hints)).toBe(expected);
  });

  test('a client hint wins over a user agent string that says otherwise (what Chromium reports is the truth)', () => {
    expect(platformFromHints({ userAgentDataPlatform: 'Windows', userAgent: ua.linux, platform: 'Linux x86_64' })).toBe('windows');
    // An unknown hint falls through to the user agent.
    expect(platformFromHints({ userAgentDataPlatform: 'Fuchsia', userAgent: ua.linux })).toBe('linux');
  });
});

type Branch = StoreProject['branches'][number];
let counter = 0;
const pkg = (tags: string[], title = `p${++counter}`) => ({ id: title, title, tags, size: 1000 });
const branch = (title: string, published: string, packages: ReturnType<typeof pkg>[]): Branch => ({
  id: title,
  title,
  versionTitle: '1.0',
  versionDescription: '',
  branchVersionPublished: published,
  packages,
});

/** The card's offers as 'kind:package' in order. */
const shown = (offers: StoreOffer[]) => offers.map((offer) => `${offer.kind}:${offer.pkg.id}`);

type VisitorKind = { name: string; cloud: boolean; localApp: boolean };
/** Who may look: a visitor signed out, a player with the cloud_play privilege (a machine online), a player whose local app answered, one with both. */
const visitorKinds: VisitorKind[] = [
  { name: 'anonymous visitor', cloud: false, localApp: false },
  { name: 'cloud player', cloud: true, localApp: false },
  { name: 'local app user', cloud: false, localApp: true },
  { name: 'cloud player with the local app', cloud: true, localApp: true },
];
const cloudTags = (tags: readonly string[]) => tags.includes('os:linux') && tags.includes('arch:x86');
const visitor = (kind: VisitorKind, platform: StoreVisitor['platform']): StoreVisitor => ({
  platform,
  cloudAllowed: kind.cloud ? cloudTags : () => false,
  localAppConnected: kind.localApp,
});

describe('chooseStoreOffers', () => {
  const linux = pkg(['os:linux', 'arch:x86'], 'linux');
  const windows = pkg(['os:windows'], 'windows');
  const mac = pkg(['os:macos'], 'mac');
  const android = pkg(['os:android'], 'android');
  const web = pkg(['os:web'], 'web');
  const main = branch('main', '2026-01-01T00:00:00Z', [linux, windows, mac, android, web]);

  // Every platform × every visitor kind: browser, cloud, local app, download, least effort first; the
  // local app before the download only where it answered (else installing it is the bigger step).
  const expected: Record<string, Record<string, string[]>> = {
    windows: {
      'anonymous visitor': ['play:web', 'download:windows', 'install:windows'],
      'cloud player': ['play:web', 'cloud:linux', 'download:windows', 'install:windows'],
      'local app user': ['play:web', 'install:windows', 'download:windows'],
      'cloud player with the local app': ['play:web', 'cloud:linux', 'install:windows', 'download:windows'],
    },
    linux: {
      'anonymous visitor': ['play:web', 'download:linux', 'install:linux'],
      'cloud player': ['play:web', 'cloud:linux', 'download:linux', 'install:linux'],
      'local app user': ['play:web', 'install:linux', 'download:linux'],
      'cloud player with the local app': ['play:web', 'cloud:linux', 'install:linux', 'download:linux'],
    },
    macos: {
      'anonymous visitor': ['play:web', 'download:mac', 'install:mac'],
      'cloud player': ['play:web', 'cloud:linux', 'download:mac', 'install:mac'],
      'local app user': ['play:web', 'install:mac', 'download:mac'],
      'cloud player with the local app': ['play:web', 'cloud:linux', 'install:mac', 'download:mac'],
    },
    // The local app has no phone build: a download, never an install.
    android: {
      'anonymous visitor': ['play:web', 'download:android'],
      'cloud player': ['play:web', 'cloud:linux', 'download:android'],
      'local app user': ['play:web', 'download:android'],
      'cloud player with the local app': ['play:web', 'cloud:linux', 'download:android'],
    },
    ios: {
      'anonymous visitor': ['play:web'],
      'cloud player': ['play:web', 'cloud:linux'],
      'local app user': ['play:web'],
      'cloud player with the local app': ['play:web', 'cloud:linux'],
    },
    // A system we know nothing of (a Chromebook): what runs anywhere.
    unknown: {
      'anonymous visitor': ['play:web'],
      'cloud player': ['play:web', 'cloud:linux'],
      'local app user': ['play:web'],
      'cloud player with the local app': ['play:web', 'cloud:linux'],
    },
  };
  for (const [platform, kinds] of Object.entries(expected)) {
    for (const kind of visitorKinds) {
      test(`${platform}, ${kind.name}`, () => {
        const offers = chooseStoreOffers([main], visitor(kind, platform === 'unknown' ? null : (platform as StoreVisitor['platform'])));
        expect(shown(offers)).toEqual(kinds[kind.name]!);
      });
    }
  }

  test('the install offer says whether the app answered; download and install name the system', () => {
    const [, install] = chooseStoreOffers([main], visitor(visitorKinds[0]!, 'windows')).slice(1);
    expect(install).toMatchObject({ kind: 'install', platform: 'windows', connected: false });
    const connected = chooseStoreOffers([main], visitor(visitorKinds[2]!, 'windows'));
    expect(connected[1]).toMatchObject({ kind: 'install', platform: 'windows', connected: true });
    expect(connected[2]).toMatchObject({ kind: 'download', platform: 'windows' });
  });

  test('without a web build the first offer is the cloud, then the system\'s build; nothing fits: no offer', () => {
    const nativeOnly = branch('main', '2026-01-01T00:00:00Z', [linux, windows]);
    expect(shown(chooseStoreOffers([nativeOnly], visitor(visitorKinds[1]!, 'windows')))).toEqual(['cloud:linux', 'download:windows', 'install:windows']);
    expect(shown(chooseStoreOffers([nativeOnly], visitor(visitorKinds[0]!, 'windows')))).toEqual(['download:windows', 'install:windows']);
    const linuxOnly = branch('main', '2026-01-01T00:00:00Z', [linux]);
    expect(chooseStoreOffers([linuxOnly], visitor(visitorKinds[0]!, 'windows'))).toEqual([]);
    expect(chooseStoreOffers([linuxOnly], visitor(visitorKinds[2]!, 'macos'))).toEqual([]);
    expect(chooseStoreOffers([], visitor(visitorKinds[3]!, null))).toEqual([]);
  });

  test("the newest publish first; a game's build before its server", () => {
    const server = pkg(['os:linux', 'component:server'], 'server');
    const client = pkg(['os:linux'], 'client');
    const old = branch('stable', '2026-01-01T00:00:00Z', [pkg(['os:linux'], 'old'), pkg(['os:web'], 'old-web')]);
    const fresh = branch('beta', '2026-02-01T00:00:00Z', [server, client]);
    const offers = chooseStoreOffers([old, fresh], visitor(visitorKinds[0]!, 'linux'));
    // The web build only the older branch has is still offered; the system's build comes from the newest.
    expect(offers.map((offer) => [offer.kind, offer.branch.id, offer.pkg.id])).toEqual([
      ['play', 'stable', 'old-web'],
      ['download', 'beta', 'client'],
      ['install', 'beta', 'client'],
    ]);
  });
});
