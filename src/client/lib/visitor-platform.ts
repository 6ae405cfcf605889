/**
 * The visitor's operating system, for the store page's primary action (issue 19): which package's
 * download to offer first. Read from what the browser says of itself, best source first:
 * `navigator.userAgentData.platform` (Chromium, secure contexts: 'Windows', 'macOS', 'Linux', 'Android',
 * 'Chrome OS', …), then the user agent string (every browser names its system there, Android included,
 * whose navigator.platform only says 'Linux armv8l'), then `navigator.platform` ('Win32', 'MacIntel',
 * 'Linux x86_64', 'iPhone'). iPadOS asks for desktop pages as a Mac: a "Mac" with a touch screen is an iPad.
 * No React, no I/O.
 */

/** The systems a package can be tagged for (os:* tags) that a visitor can run it on; the web is everyone's. */
export type VisitorPlatform = 'linux' | 'windows' | 'macos' | 'android' | 'ios';

/** What the browser says of itself (navigator's fields), so the rule can be tested without one. */
export type PlatformHints = { userAgentDataPlatform?: string; userAgent?: string; platform?: string; maxTouchPoints?: number };

function fromClientHint(platform: string, touch: boolean): VisitorPlatform | null | undefined {
  switch (platform.trim().toLowerCase()) {
    case 'windows':
      return 'windows';
    case 'macos':
      return touch ? 'ios' : 'macos';
    case 'linux':
      return 'linux';
    case 'android':
      return 'android';
    case 'ios':
      return 'ios';
    // A Chromebook runs web games; its Linux container is not what a visitor means by their system.
    case 'chrome os':
    case 'chromeos':
      return null;
    default:
      return undefined;
  }
}

function fromUserAgent(userAgent: string, touch: boolean): VisitorPlatform | null | undefined {
  if (/\b(iPhone|iPad|iPod)\b/.test(userAgent)) return 'ios';
  if (/\bAndroid\b/.test(userAgent)) return 'android';
  if (/\bCrOS\b/.test(userAgent)) return null;
  if (/\bWindows\b/.test(userAgent)) return 'windows';
  if (/\bMacintosh\b|\bMac OS X\b/.test(userAgent)) return touch ? 'ios' : 'macos';
  if (/\bLinux\b|\bX11\b/.test(userAgent)) return 'linux';
  return undefined;
}

function fromPlatform(platform: string, touch: boolean): VisitorPlatform | undefined {
  if (/^(iPhone|iPad|iPod)/.test(platform)) return 'ios';
  if (/^Win/.test(platform)) return 'windows';
  if (/^Mac/.test(platform)) return touch ? 'ios' : 'macos';
  if (/Android/.test(platform)) return 'android';
  if (/^Linux/.test(platform)) return 'linux';
  return undefined;
}

/** The platform the hints name, or null when none of them names one this store offers downloads for. */
export function platformFromHints(hints: PlatformHints): VisitorPlatform | null {
  const touch = (hints.maxTouchPoints ?? 0) > 1;
  if (hints.userAgentDataPlatform) {
    const found = fromClientHint(hints.userAgentDataPlatform, touch);
    if (found !== undefined) return found;
  }
  if (hints.userAgent) {
    const found = fromUserAgent(hints.userAgent, touch);
    if (found !== undefined) return found;
  }
  if (hints.platform) return fromPlatform(hints.platform, touch) ?? null;
  return null;
}

type NavigatorWithHints = Navigator & { userAgentData?: { platform?: string } };

/** This browser's platform (null: not one of ours, or no browser). */
export function detectVisitorPlatform(): VisitorPlatform | null {
  if (typeof navigator === 'undefined') return null;
  const nav = navigator as NavigatorWithHints;
  return platformFromHints({
    userAgentDataPlatform: nav.userAgentData?.platform,
    userAgent: nav.userAgent,
    platform: nav.platform,
    maxTouchPoints: nav.maxTouchPoints,
  });
}
