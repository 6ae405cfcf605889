import type { Page, Response } from 'playwright-core';

/**
 * The checks of Lighthouse 12's SEO category (issue 21), made on a page Chromium rendered: what each
 * audit looks at, by the same rules (lighthouse core/audits/seo/*.js), so a test can tell which one
 * would fail without Lighthouse itself (bench:seo runs the real one). structured-data is a manual audit
 * there and is not scored.
 */

/** RFC 9309's matching: the longest matching rule wins, Allow on a tie; `*` any characters, `$` the end. */
export function robotsAllows(robots: string, path: string): boolean {
  const rules = robots
    .split(/\r\n|\r|\n/)
    .map((line) => /^(allow|disallow):\s*(\S*)$/i.exec(line.replace(/#.*/, '').trim()))
    .filter((match): match is RegExpExecArray => match !== null && match[2] !== '')
    .map((match) => ({ allow: match[1]!.toLowerCase() === 'allow', pattern: match[2]! }));
  let best: { allow: boolean; length: number } | undefined;
  for (const rule of rules) {
    const source = rule.pattern.replace(/[.+?^{}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
    if (!new RegExp(`^${source}`).test(path)) continue;
    if (!best || rule.pattern.length > best.length || (rule.pattern.length === best.length && rule.allow)) best = { allow: rule.allow, length: rule.pattern.length };
  }
  return best?.allow ?? true;
}

const robotsDirectives = new Set(['user-agent', 'disallow', 'allow', 'sitemap', 'crawl-delay', 'clean-param', 'host', 'request-rate', 'visit-time', 'noindex']);
const groupMembers = new Set(['allow', 'disallow', 'crawl-delay', 'clean-param', 'request-rate', 'visit-time', 'noindex']);

/** Lighthouse's robots-txt validation: the problems per line ([] when valid). */
export function robotsTxtProblems(content: string): string[] {
  const problems: string[] = [];
  let inGroup = false;
  for (const [index, raw] of content.split(/\r\n|\r|\n/).entries()) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const colon = line.indexOf(':');
    if (colon < 0) {
      problems.push(`${index + 1}: syntax not understood`);
      continue;
    }
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (!robotsDirectives.has(name)) problems.push(`${index + 1}: unknown directive ${name}`);
    if (name === 'sitemap') {
      try {
        if (!['http:', 'https:', 'ftp:'].includes(new URL(value).protocol)) problems.push(`${index + 1}: sitemap protocol`);
      } catch {
        problems.push(`${index + 1}: invalid sitemap URL`);
      }
    }
    if (name === 'user-agent' && !value) problems.push(`${index + 1}: no user-agent specified`);
    if ((name === 'allow' || name === 'disallow') && value !== '') {
      if (value[0] !== '/' && value[0] !== '*') problems.push(`${index + 1}: pattern must start with / or *`);
      const dollar = value.indexOf('$');
      if (dollar !== -1 && dollar !== value.length - 1) problems.push(`${index + 1}: $ only at the end`);
    }
    if (name === 'user-agent') inGroup = true;
    else if (!inGroup && groupMembers.has(name)) problems.push(`${index + 1}: no user-agent before ${name}`);
  }
  return problems;
}

/** Lighthouse's link-text audit: anchors whose whole text says nothing about where they go (its English list). */
const genericLinkTexts = new Set(['click here', 'click this', 'go', 'here', 'information', 'learn more', 'more', 'more info', 'more information', 'right here', 'read more', 'see more', 'start', 'this']);

export type SeoAudit = { id: string; passed: boolean; detail: string };

/**
 * The scored SEO audits of the page as it is now (load it and wait for its content first), plus
 * robots.txt as the page's origin answers it. `response`: the page's own navigation response.
 */
export async function seoAudits(page: Page, response: Response | null): Promise<SeoAudit[]> {
  const found = await page.evaluate(() => {
    const metas = [...document.querySelectorAll('meta[name="robots"], meta[name="googlebot"]')].map((meta) => meta.getAttribute('content') ?? '');
    return {
      url: location.href,
      origin: location.origin,
      title: document.title,
      descriptions: [...document.querySelectorAll('meta[name="description"]')].map((meta) => meta.getAttribute('content') ?? ''),
      canonicals: [...document.querySelectorAll('link[rel="canonical"]')].map((link) => link.getAttribute('href') ?? ''),
      alternates: [...document.querySelectorAll('link[rel="alternate"][hreflang]')].map((link) => ({ hreflang: link.getAttribute('hreflang') ?? '', href: link.getAttribute('href') ?? '' })),
      robotsMetas: metas,
      anchors: [...document.querySelectorAll('a')].map((anchor) => ({ href: anchor.getAttribute('href'), text: (anchor.textContent ?? '').trim().toLowerCase(), name: anchor.getAttribute('name') ?? '' })),
      images: [...document.querySelectorAll('img')].map((image) => ({ src: image.getAttribute('src') ?? '', alt: image.getAttribute('alt'), hidden: image.closest('[aria-hidden="true"]') !== null || image.getAttribute('role') === 'presentation' })),
    };
  });
  const robotsResponse = await page.request.get(`${found.origin}/robots.txt`);
  const robots = await robotsResponse.text();
  const audits: SeoAudit[] = [];
  const add = (id: string, passed: boolean, detail = '') => audits.push({ id, passed, detail });

  add('document-title', found.title.trim().length > 0, found.title);
  add('meta-description', found.descriptions.length > 0 && found.descriptions[0]!.trim().length > 0, found.descriptions.join(' | '));
  const status = response?.status() ?? 0;
  add('http-status-code', status >= 200 && status < 400, String(status));
  const headerNoindex = /noindex|none/i.test(response?.headers()['x-robots-tag'] ?? '');
  const metaNoindex = found.robotsMetas.some((content) => /noindex|none/i.test(content));
  const path = new URL(found.url).pathname;
  add('is-crawlable', !headerNoindex && !metaNoindex && robotsAllows(robots, path), `robots.txt allows ${path}: ${robotsAllows(robots, path)}`);
  const genericLinks = found.anchors.filter((anchor) => anchor.href && !anchor.href.startsWith('#') && !anchor.href.startsWith('javascript:') && genericLinkTexts.has(anchor.text));
  add('link-text', genericLinks.length === 0, genericLinks.map((anchor) => anchor.text).join(', '));
  const uncrawlable = found.anchors.filter((anchor) => {
    if (anchor.name) return false;
    const href = anchor.href ?? '';
    if (href.startsWith('mailto:')) return false;
    if (!href.trim() || /^javascript:/i.test(href) || href.startsWith('file:')) return true;
    try {
      new URL(href, found.url);
      return false;
    } catch {
      return true;
    }
  });
  add('crawlable-anchors', uncrawlable.length === 0, uncrawlable.map((anchor) => `${anchor.text}: ${anchor.href}`).join(', '));
  add('robots-txt', robotsResponse.status() < 500 && robotsTxtProblems(robots).length === 0, robotsTxtProblems(robots).join('; '));
  const withoutAlt = found.images.filter((image) => !image.hidden && image.alt === null);
  add('image-alt', withoutAlt.length === 0, withoutAlt.map((image) => image.src).join(', '));
  const badAlternates = found.alternates.filter((alternate) => {
    const code = alternate.hreflang.toLowerCase();
    let validCode = code === 'x-default';
    try {
      validCode ||= Intl.getCanonicalLocales(code.split('-')[0]!).length === 1 && /^[a-z]{2,3}$/.test(code.split('-')[0]!);
    } catch {
      validCode = false;
    }
    return !validCode || !/^https?:\/\//.test(alternate.href);
  });
  add('hreflang', badAlternates.length === 0, badAlternates.map((alternate) => `${alternate.hreflang} ${alternate.href}`).join(', '));
  // canonical: one address (duplicates only if equal), absolute, this origin, not the root for another page,
  // and within the hreflang set when the page's own address is in it.
  const canonicals = [...new Set(found.canonicals)];
  let canonicalProblem = '';
  if (canonicals.length > 1) canonicalProblem = `several: ${canonicals.join(', ')}`;
  else if (canonicals.length === 1) {
    const href = canonicals[0]!;
    if (!/^https?:\/\//.test(href)) canonicalProblem = `not absolute: ${href}`;
    else {
      const canonical = new URL(href);
      const own = new URL(found.url);
      const hreflangs = new Set(found.alternates.map((alternate) => new URL(alternate.href).href));
      if (canonical.origin !== own.origin) canonicalProblem = `other origin: ${href}`;
      else if (canonical.pathname === '/' && own.pathname !== '/') canonicalProblem = `points at the root: ${href}`;
      else if (hreflangs.has(own.href) && !hreflangs.has(canonical.href)) canonicalProblem = `not in the hreflang set: ${href}`;
    }
  }
  add('canonical', canonicals.length === 1 && canonicalProblem === '', canonicalProblem || canonicals.join(', '));
  return audits;
}
