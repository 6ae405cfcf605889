import type { Config } from '../config.ts';
import { appUrlOf } from './app-url.ts';

/** Where the store's sitemap is (domains/store/store.rest.ts GET /api/store/sitemap.xml). */
const sitemapPath = '/api/store/sitemap.xml';

/**
 * /robots.txt of the app's origin (issue 21; RFC 9309): crawlers may read the public pages (home, the
 * store and its play pages, docs, the pictures link previews show), not the API, tRPC or anyone's own
 * screens (profile, projects, invites, sign-in returns, admin, the local app), and are pointed at the
 * sitemap (absolute: PUBLIC_URL, else the request's origin, as the sitemap does). The sitemap itself is
 * allowed though it sits under /api/ (the longest matching rule wins). The play origin answers its own
 * robots.txt (everything disallowed: games are reached through their store page).
 */
function robotsTxt(base: string): string {
  return [
    'User-agent: *',
    'Allow: /',
    `Allow: ${sitemapPath}`,
    'Disallow: /api/',
    'Disallow: /trpc/',
    'Disallow: /me$',
    'Disallow: /me/',
    'Disallow: /projects$',
    'Disallow: /projects/',
    'Disallow: /invite',
    'Disallow: /oauth',
    'Disallow: /admin',
    'Disallow: /local',
    'Disallow: /experiment',
    '',
    `Sitemap: ${base}${sitemapPath}`,
    '',
  ].join('\n');
}

export function robotsRoute(config: Pick<Config, 'publicUrl'>): (request: Request) => Response {
  return (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return new Response('method not allowed', { status: 405, headers: { allow: 'GET, HEAD', 'content-type': 'text/plain;charset=utf-8' } });
    }
    const body = robotsTxt(appUrlOf(config, request));
    return new Response(request.method === 'HEAD' ? null : body, { headers: { 'content-type': 'text/plain;charset=utf-8', 'cache-control': 'public, max-age=3600' } });
  };
}
