import { describe, expect, test } from 'bun:test';
import { choosePrimaryAction } from '../../src/client/routes/store/primary-action.ts';
import { platformFromHints } from '../../src/client/lib/visitor-platform.ts';
import type { StoreProject } from '../../src/shared/schemas/store.ts';

/** The store page's primary action (issue 19): the visitor's system from what the browser says, then the package offered first. */

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

describe('choosePrimaryAction', () => {
  const linux = pkg(['os:linux', 'arch:x86'], 'linux');
  const windows = pkg(['os:windows'], 'windows');
  const web = pkg(['os:web'], 'web');
  const main = branch('main', '2026-01-01T00:00:00Z', [linux, windows, web]);
  const never = () => false;

  test("the visitor's own system first, then the web, then the cloud, else none", () => {
    expect(choosePrimaryAction([main], 'windows', never)).toMatchObject({ kind: 'download', platform: 'windows', pkg: { id: 'windows' } });
    expect(choosePrimaryAction([main], 'linux', never)).toMatchObject({ kind: 'download', platform: 'linux', pkg: { id: 'linux' } });
    expect(choosePrimaryAction([main], 'macos', never)).toMatchObject({ kind: 'play', pkg: { id: 'web' } });
    expect(choosePrimaryAction([main], null, never)).toMatchObject({ kind: 'play', pkg: { id: 'web' } });
    const linuxOnly = branch('main', '2026-01-01T00:00:00Z', [linux]);
    expect(choosePrimaryAction([linuxOnly], 'windows', (tags) => tags.includes('os:linux') && tags.includes('arch:x86'))).toMatchObject({ kind: 'cloud', pkg: { id: 'linux' } });
    expect(choosePrimaryAction([linuxOnly], 'windows', never)).toEqual({ kind: 'none', platform: 'windows' });
    expect(choosePrimaryAction([], null, never)).toEqual({ kind: 'none', platform: null });
  });

  test("the newest publish first; a game's build before its server", () => {
    const server = pkg(['os:linux', 'component:server'], 'server');
    const client = pkg(['os:linux'], 'client');
    const old = branch('stable', '2026-01-01T00:00:00Z', [pkg(['os:linux'], 'old')]);
    const fresh = branch('beta', '2026-02-01T00:00:00Z', [server, client]);
    expect(choosePrimaryAction([old, fresh], 'linux', never)).toMatchObject({ branch: { id: 'beta' }, pkg: { id: 'client' } });
  });
});
