import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { Window } from 'happy-dom';
import sharp from 'sharp';
import { projects } from '../../src/server/db/schema/index.ts';
import { languageCodes } from '../../src/shared/i18n/languages.ts';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { uploadContentImage } from '../support/content-images.ts';
import { photoLike } from '../support/images.ts';
import { createProject, makePublic, type TestProject } from '../support/projects.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { listedProject, setStoreMedia, type ListedProject } from '../support/store-fixtures.ts';
import { robotsAllows, robotsTxtProblems } from '../e2e/support/seo-audits.ts';

/**
 * Issue 21: the app shell's head on public store pages, as crawlers and link-preview bots read it (the
 * HTML as served, parsed without running any script), the generic shell for everything the store does
 * not show (private and unknown alike, byte for byte), robots.txt and the sitemap's language alternates.
 */

let server: TestServer;
let owner: TestUser;
let game: ListedProject;
let secret: TestProject;
const secretWords = 'Zyzzyva Hidden Lab';
const description = '# Mine the stars\n\nA **cosy** mining game: dig, trade & fly between [twelve](https://example.com) asteroids.[^1]\n\nSecond paragraph.\n\n[^1]: Or so.';

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server, 'ada_dev');
  game = await listedProject(server, owner, 'Star Miner', { platforms: ['linux', 'web'], description });
  await setStoreMedia(server, owner, game.project.id, { cover: { width: 2560, height: 1440 }, screenshots: 1 });
  // A private project with a description and a cover of its own: none of it may show anywhere.
  secret = await createProject(server, owner, secretWords);
  await call('PUT', `/api/projects/${secret.id}/description`, { markdown: `${secretWords} is our unreleased game.`, lang: 'en', images: [] });
  await setStoreMedia(server, owner, secret.id, { cover: { width: 800, height: 600 }, seed: 7 });
}, 120_000);
afterAll(() => server?.stop());

async function call(method: string, path: string, json?: unknown, as: TestUser = owner): Promise<unknown> {
  const response = await server.fetch(path, { method, token: as.token, json });
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** The HTML as served, and as a browser's parser reads it with no script run (what a link-preview bot sees). */
type Served = { response: Response; html: string; document: Document };

const parser = new Window();
afterAll(() => parser.happyDOM.close());

async function served(path: string, init: RequestInit & { token?: string } = {}, target: TestServer = server): Promise<Served> {
  const response = await target.fetch(path, init);
  const html = await response.text();
  const document = new parser.DOMParser().parseFromString(html, 'text/html') as unknown as Document;
  return { response, html, document };
}

const metaOf = (document: Document, key: string) =>
  document.querySelector(`meta[name="${key}"]`)?.getAttribute('content') ?? document.querySelector(`meta[property="${key}"]`)?.getAttribute('content') ?? null;
const canonicalOf = (document: Document) => document.querySelector('link[rel="canonical"]')?.getAttribute('href') ?? null;
const alternatesOf = (document: Document) =>
  [...document.querySelectorAll('link[rel="alternate"][hreflang]')].map((link) => [link.getAttribute('hreflang'), link.getAttribute('href')] as const);
function jsonLdOf(document: Document): Record<string, unknown>[] {
  return [...document.querySelectorAll('script[type="application/ld+json"]')].map((script) => JSON.parse(script.textContent ?? '') as Record<string, unknown>);
}

const storePath = (id: string) => `/store/${encodeURIComponent(id)}`;

describe('a public store page', () => {
  test('title, description, canonical, language alternates, Open Graph, Twitter card and VideoGame JSON-LD in the HTML', async () => {
    const { response, document } = await served(storePath(game.project.id));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html;charset=utf-8');
    expect(response.headers.get('vary')).toBe('accept-language, accept-encoding');
    expect(document.documentElement.getAttribute('lang')).toBe('en');
    expect(document.documentElement.getAttribute('dir')).toBe('ltr');
    expect(document.title).toBe('Star Miner - Cartridge');
    expect(document.querySelectorAll('title').length).toBe(1);
    // The first paragraph as plain text: emphasis and links as their words, the footnote mark gone.
    const summary = 'A cosy mining game: dig, trade & fly between twelve asteroids.';
    expect(metaOf(document, 'description')).toBe(summary);
    const canonical = `${server.url}${storePath(game.project.id)}`;
    expect(canonicalOf(document)).toBe(canonical);
    expect(alternatesOf(document)).toEqual([...languageCodes.map((code) => [code, `${canonical}?lang=${code}`] as const), ['x-default', canonical]]);
    expect(metaOf(document, 'og:type')).toBe('website');
    expect(metaOf(document, 'og:site_name')).toBe('Cartridge');
    expect(metaOf(document, 'og:title')).toBe('Star Miner');
    expect(metaOf(document, 'og:description')).toBe(summary);
    expect(metaOf(document, 'og:url')).toBe(canonical);
    expect(metaOf(document, 'og:locale')).toBe('en_US');
    // The cover at the size link previews use (1280 of the 2560 px image's sizes), absolute.
    const media = (await (await server.fetch(`/api/store/projects/${game.project.id}`)).json()) as { media: { cover: { id: string }; screenshots: { id: string }[] } };
    const image = `${server.url}/content-images/${media.media.cover.id}/1280`;
    expect(metaOf(document, 'og:image')).toBe(image);
    expect(metaOf(document, 'og:image:width')).toBe('1280');
    expect(metaOf(document, 'og:image:height')).toBe('720');
    expect(metaOf(document, 'og:image:alt')).toBe('Cover art of Star Miner');
    expect(metaOf(document, 'twitter:card')).toBe('summary_large_image');
    expect(metaOf(document, 'twitter:title')).toBe('Star Miner');
    expect(metaOf(document, 'twitter:description')).toBe(summary);
    expect(metaOf(document, 'twitter:image')).toBe(image);
    const [data, ...more] = jsonLdOf(document);
    expect(more).toEqual([]);
    expect(data).toEqual({
      '@context': 'https://schema.org',
      '@type': 'VideoGame',
      name: 'Star Miner',
      description: summary,
      url: canonical,
      image,
      screenshot: [`${server.url}/content-images/${media.media.screenshots[0]!.id}/1280`],
      author: { '@type': 'Person', name: 'ada_dev' },
      gamePlatform: ['Linux', 'Web browser'],
      inLanguage: 'en',
      dateModified: expect.any(String),
      applicationCategory: 'Game',
      isAccessibleForFree: true,
      offers: { '@type': 'Offer', price: '0', priceCurrency: 'USD', availability: 'https://schema.org/InStock', url: canonical },
    });
    // Still the app: its root and its script.
    expect(document.querySelector('#root')).not.toBeNull();
    expect(document.querySelector('script[type="module"][src]')).not.toBeNull();
  });

  test('the CSP is the shell’s: strict, the same hash of the theme script only, no entry for the JSON-LD data', async () => {
    const store = await served(storePath(game.project.id));
    const shell = await served('/some/deep/link');
    const policy = store.response.headers.get('content-security-policy')!;
    expect(policy).toBe(shell.response.headers.get('content-security-policy')!);
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).not.toContain('unsafe-eval');
    const scriptSources = /script-src ([^;]*)/.exec(policy)![1]!.split(' ');
    expect(scriptSources.filter((source) => source.startsWith("'sha256-"))).toHaveLength(1);
    // The only inline script that runs is the theme snippet; the JSON-LD is a data block.
    const inline = [...store.document.querySelectorAll('script:not([src])')];
    expect(inline.map((script) => script.getAttribute('type'))).toEqual(['application/ld+json', null]);
  });

  test('a link-preview bot (no script, its own user agent and Accept) finds title, description and a cover it can fetch', async () => {
    for (const userAgent of ['Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)', 'facebookexternalhit/1.1', 'Twitterbot/1.0', 'Mastodon/4.3.0 (http.rb/5.2.0; +https://mastodon.social/)']) {
      const { document } = await served(storePath(game.project.id), { headers: { 'user-agent': userAgent, accept: '*/*' } });
      expect(document.title).toBe('Star Miner - Cartridge');
      expect(metaOf(document, 'og:title')).toBe('Star Miner');
      expect(metaOf(document, 'og:description')).toStartWith('A cosy mining game');
      const imageUrl = metaOf(document, 'og:image')!;
      const image = await fetch(imageUrl, { headers: { 'user-agent': userAgent, accept: '*/*' } });
      expect(image.status).toBe(200);
      // Bots that name no modern format get JPEG, which every preview renderer decodes.
      expect(image.headers.get('content-type')).toBe('image/jpeg');
      const size = await sharp(new Uint8Array(await image.arrayBuffer())).metadata();
      expect([size.width, size.height]).toEqual([Number(metaOf(document, 'og:image:width')), Number(metaOf(document, 'og:image:height'))]);
    }
  });

  test('comes from the cached store page: a change the cache was not told of does not show (no query per request)', async () => {
    const listed = await listedProject(server, owner, 'Cached Title', { description: 'Cached words.' });
    const path = storePath(listed.project.id);
    expect((await served(path)).document.title).toBe('Cached Title - Cartridge');
    // Renamed behind the cache's back: triggers off for this one statement, so no store_changed notification.
    await server.deps.db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.update(projects).set({ title: 'Renamed Quietly' }).where(eq(projects.id, listed.project.id));
    });
    const again = await served(path);
    expect(again.document.title).toBe('Cached Title - Cartridge');
    expect(again.html).not.toContain('Renamed Quietly');
    // A change made through the API is heard at once (notification), and the head follows it.
    await call('PATCH', `/api/projects/${listed.project.id}`, { title: 'Renamed Loudly' });
    expect((await served(path)).document.title).toBe('Renamed Loudly - Cartridge');
  });

  test('the page’s language: ?lang= names it (canonical keeps it), else Accept-Language; words of the page translated, right-to-left for Arabic', async () => {
    const path = storePath(game.project.id);
    const german = await served(`${path}?lang=de`, { headers: { 'accept-language': 'fr' } });
    expect(german.document.documentElement.getAttribute('lang')).toBe('de');
    expect(canonicalOf(german.document)).toBe(`${server.url}${path}?lang=de`);
    expect(metaOf(german.document, 'og:locale')).toBe('de_DE');
    expect(metaOf(german.document, 'og:image:alt')).not.toBe('Cover art of Star Miner');
    expect(metaOf(german.document, 'og:image:alt')).toContain('Star Miner');
    const arabic = await served(`${path}?lang=ar`);
    expect([arabic.document.documentElement.getAttribute('lang'), arabic.document.documentElement.getAttribute('dir')]).toEqual(['ar', 'rtl']);
    const browser = await served(path, { headers: { 'accept-language': 'pt-BR,pt;q=0.9,en;q=0.5' } });
    expect(browser.document.documentElement.getAttribute('lang')).toBe('pt-BR');
    // No ?lang: the address without a language is canonical whatever the browser speaks.
    expect(canonicalOf(browser.document)).toBe(`${server.url}${path}`);
    // An unknown ?lang is ignored (the browser's language, canonical without it).
    const unknown = await served(`${path}?lang=xx`, { headers: { 'accept-language': 'ja' } });
    expect(unknown.document.documentElement.getAttribute('lang')).toBe('ja');
    expect(canonicalOf(unknown.document)).toBe(`${server.url}${path}`);
  });

  test('a project without a description is described in the page’s language; without pictures, a summary card', async () => {
    const listed = await listedProject(server, owner, 'Bare Bones');
    const { document } = await served(storePath(listed.project.id));
    expect(metaOf(document, 'description')).toBe(`Bare Bones by ada_dev, published on Cartridge.`);
    expect(metaOf(document, 'og:image')).toBeNull();
    expect(metaOf(document, 'twitter:card')).toBe('summary');
    expect(jsonLdOf(document)[0]).not.toHaveProperty('image');
    const german = await served(`${storePath(listed.project.id)}?lang=de`);
    expect(metaOf(german.document, 'description')).toBe('Bare Bones von ada_dev, veröffentlicht auf Cartridge.');
  });
});

describe('special characters', () => {
  test('quotes, <, </script>, &, emoji and right-to-left text come out exactly in text, attributes and JSON-LD', async () => {
    const title = `Say "hi" <b>& </script><script>alert(1)</script> 🚀👩‍🚀 مرحبا بالعالم`;
    const markdown = `A \`</script><!--\` test with 'quotes' & "doubles" and <img src=x onerror=alert(2)> HTML 🎮 نص عربي.\n\nMore.`;
    const listed = await listedProject(server, owner, title, { platforms: ['web'], description: markdown });
    const { html, document } = await served(storePath(listed.project.id));
    expect(document.title).toBe(`${title} - Cartridge`);
    expect(metaOf(document, 'og:title')).toBe(title);
    expect(metaOf(document, 'twitter:title')).toBe(title);
    const expected = `A </script><!-- test with 'quotes' & "doubles" and HTML 🎮 نص عربي.`;
    expect(metaOf(document, 'description')).toBe(expected);
    const [data] = jsonLdOf(document);
    expect(data!.name).toBe(title);
    expect(data!.description).toBe(expected);
    // Nothing the user wrote became markup: one script of each kind, no element from the title.
    expect(document.querySelectorAll('script:not([src])')).toHaveLength(2);
    expect(document.querySelectorAll('head b, body b, img')).toHaveLength(0);
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('onerror=alert');
    // The JSON-LD text holds no '<' at all (\u003c), so nothing in it can close or comment out the element.
    const jsonText = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(jsonText).not.toMatch(/[<>]/);
    expect(jsonText).toContain('\\u003c/script\\u003e');
  });

  test('a long description is cut at a word with an ellipsis, never inside an emoji', async () => {
    const words = Array.from({ length: 120 }, (_, index) => (index % 7 === 6 ? '👩‍👩‍👧‍👦' : `word${index}`)).join(' ');
    const listed = await listedProject(server, owner, 'Long Talk', { description: words });
    const summary = metaOf((await served(storePath(listed.project.id))).document, 'description')!;
    expect(summary.endsWith('…')).toBe(true);
    expect([...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(summary)].length).toBeLessThanOrEqual(300);
    expect(words.startsWith(summary.slice(0, -1))).toBe(true);
    expect(words.charAt(summary.length - 1)).toBe(' ');
  });
});

describe('what the store does not show', () => {
  test('a private project gets the generic shell, byte for byte the unknown project’s, for visitors and its own owner', async () => {
    const unknown = await served('/store/no-such-project');
    // Not found, said in the status too (issue 29: no soft 404 for search engines to index).
    expect(unknown.response.status).toBe(404);
    expect(unknown.document.title).toBe('Cartridge');
    expect(metaOf(unknown.document, 'description')).toBeNull();
    expect(canonicalOf(unknown.document)).toBeNull();
    expect(metaOf(unknown.document, 'og:title')).toBeNull();
    expect(jsonLdOf(unknown.document)).toEqual([]);
    for (const init of [{}, { token: owner.token }, { headers: { cookie: owner.cookie } }]) {
      const hidden = await served(storePath(secret.id), init);
      expect(hidden.response.status).toBe(unknown.response.status);
      expect(hidden.html).toBe(unknown.html);
      expect([...hidden.response.headers.entries()].filter(([name]) => name !== 'date')).toEqual([...unknown.response.headers.entries()].filter(([name]) => name !== 'date'));
      expect(hidden.html).not.toContain('Zyzzyva');
      expect(hidden.html).not.toContain(secret.id);
    }
  });

  test('a project made private again stops showing at once', async () => {
    const listed = await listedProject(server, owner, 'Short Lived', { description: 'Visible for a while.' });
    expect((await served(storePath(listed.project.id))).document.title).toBe('Short Lived - Cartridge');
    await call('PATCH', `/api/projects/${listed.project.id}`, { isPublic: false });
    const after = await served(storePath(listed.project.id));
    expect(after.html).toBe((await served('/store/no-such-project')).html);
  });

  test('hostile paths get the generic shell and never fail', async () => {
    const generic = (await served('/store/no-such-project')).html;
    const paths = [
      '/store/%00',
      '/store/a%00b',
      '/store/%0d%0aSet-Cookie:%20x=1',
      '/store/..%2F..%2Fetc%2Fpasswd',
      `/store/${game.project.id}%2F..`,
      `/store/${'x'.repeat(5000)}`,
      `/store/${'a'.repeat(65)}`,
      '/store/%E0%A4%A',
      '/store/%F0%9F%9A%80',
      '/store/<script>',
      `/store/${secret.id}/main/pkg/play`,
      `/store/${game.project.id}/${game.branch}/${game.packages.linux}/play`,
      `/store/${game.project.id}/${game.branch}/${game.packages.web}/cloud-play`,
      `/store/${game.project.id}/no-branch/${game.packages.web}/play`,
      `/store/${game.project.id}/${game.branch}/no-package/play`,
      `/store/${game.project.id}/extra/segments`,
    ];
    // Pages of a listed package (one that cannot be played in the browser says so on its page) are
    // found; everything else is 404 (tests/api/page-status.test.ts).
    const listed = [`/store/${game.project.id}/${game.branch}/${game.packages.linux}/play`, `/store/${game.project.id}/${game.branch}/${game.packages.web}/cloud-play`];
    for (const path of paths) {
      const response = await server.fetch(path);
      expect({ path, status: response.status }).toEqual({ path, status: listed.includes(path) ? 200 : 404 });
      expect(await response.text()).toBe(generic);
    }
  });
});

describe('the store index, a play page and home', () => {
  test('the store index: its own title, description and canonical (the search stays out of it)', async () => {
    const { document } = await served('/store?query=star');
    expect(document.title).toBe('Store - Cartridge');
    expect(metaOf(document, 'description')).toBe('Games and tools published on Cartridge.');
    expect(canonicalOf(document)).toBe(`${server.url}/store`);
    expect(alternatesOf(document)).toContainEqual(['ar', `${server.url}/store?lang=ar`]);
    expect(metaOf(document, 'twitter:card')).toBe('summary');
    const arabic = await served('/store/?lang=ar');
    expect(arabic.document.title).toBe('المتجر - Cartridge');
    expect(arabic.document.documentElement.getAttribute('dir')).toBe('rtl');
  });

  test('a web package’s play page: “Play {package}”, the game’s description and cover, its own canonical', async () => {
    const path = `/store/${game.project.id}/${game.branch}/${game.packages.web}/play`;
    const { document } = await served(path);
    expect(document.title).toBe('Play Web build - Cartridge');
    expect(metaOf(document, 'description')).toStartWith('A cosy mining game');
    expect(canonicalOf(document)).toBe(`${server.url}${path}`);
    expect(metaOf(document, 'og:image')).toContain('/content-images/');
    expect(jsonLdOf(document)[0]).toMatchObject({ '@type': 'VideoGame', name: 'Star Miner', url: `${server.url}${storePath(game.project.id)}` });
  });

  test('home has a description; other screens keep the generic head', async () => {
    const home = await served('/');
    expect(home.document.title).toBe('Home - Cartridge');
    expect(metaOf(home.document, 'description')).toStartWith('Cartridge is a self-hostable');
    expect(canonicalOf(home.document)).toBe(`${server.url}/`);
    for (const path of ['/me', `/projects/${game.project.id}`, '/login']) {
      const { document } = await served(path);
      expect(document.title).toBe('Cartridge');
      expect(metaOf(document, 'description')).toBeNull();
      expect(canonicalOf(document)).toBeNull();
    }
  });
});

describe('robots.txt and the sitemap', () => {
  test('robots.txt allows the store, keeps crawlers out of the API and private screens, names the sitemap', async () => {
    const response = await server.fetch('/robots.txt');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain;charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const robots = await response.text();
    // Every line is a directive Lighthouse and RFC 9309 know, or empty.
    for (const line of robots.split('\n')) expect(line).toMatch(/^$|^(User-agent: \*|Allow: \/\S*|Disallow: \/\S*|Sitemap: https?:\/\/\S+)$/);
    expect(robotsTxtProblems(robots)).toEqual([]);
    expect(robots.split('\n')[0]).toBe('User-agent: *');
    expect(robots).toContain(`Sitemap: ${server.url}/api/store/sitemap.xml`);
    for (const path of ['/', '/store', `/store/${game.project.id}`, `/store/${game.project.id}/${game.branch}/${game.packages.web}/play`, '/api/store/sitemap.xml', '/content-images/abc/1280', '/docs/en/index']) {
      expect([path, robotsAllows(robots, path)]).toEqual([path, true]);
    }
    for (const path of ['/api/', '/api/projects', '/api/store/projects/x', '/trpc/store.project', '/me', '/me/', '/projects', '/projects/', `/projects/${game.project.id}`, '/admin']) {
      expect([path, robotsAllows(robots, path)]).toEqual([path, false]);
    }
    // The sitemap it names is there.
    const sitemap = await fetch(/Sitemap: (\S+)/.exec(robots)![1]!);
    expect(sitemap.status).toBe(200);
  });

  test('the sitemap lists store pages with lastmod and each language as an xhtml:link alternate', async () => {
    const xml = await (await server.fetch('/api/store/sitemap.xml')).text();
    const document = new parser.DOMParser().parseFromString(xml, 'application/xml') as unknown as Document;
    const page = `${server.url}${storePath(game.project.id)}`;
    const entry = [...document.getElementsByTagName('url')].find((url) => url.getElementsByTagName('loc')[0]?.textContent === page);
    expect(entry).toBeDefined();
    expect(entry!.getElementsByTagName('lastmod')[0]?.textContent).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const links = [...entry!.getElementsByTagName('xhtml:link')].map((link) => [link.getAttribute('rel'), link.getAttribute('hreflang'), link.getAttribute('href')]);
    expect(links).toEqual([...languageCodes.map((code) => ['alternate', code, `${page}?lang=${code}`]), ['alternate', 'x-default', page]]);
    expect(xml).not.toContain(secret.id);
  });
});

describe('with PUBLIC_URL', () => {
  let publicServer: TestServer;
  let publicGame: ListedProject;
  beforeAll(async () => {
    publicServer = await startTestServer({ PUBLIC_URL: 'https://games.example.com' });
    const dev = await registerUser(publicServer, 'pub_dev');
    publicGame = await listedProject(publicServer, dev, 'Public Url Game', { description: 'Hello.' });
    // Upload addresses name PUBLIC_URL, which does not resolve here: the part goes to the server itself.
    const local: Pick<TestServer, 'fetch'> = {
      async fetch(path, init) {
        const response = await publicServer.fetch(path, init);
        if (!String(path).endsWith('/content/images') || response.status !== 200) return response;
        const created = (await response.json()) as { uploadInfo: { uploadUrl: string } };
        created.uploadInfo.uploadUrl = created.uploadInfo.uploadUrl.replace('https://games.example.com', publicServer.url);
        return Response.json(created);
      },
    };
    const cover = await uploadContentImage(local, dev, publicGame.project.id, await photoLike(640, 360, { format: 'jpeg' }), 640, 360);
    await publicServer.fetch(`/api/projects/${publicGame.project.id}/media`, { method: 'PUT', token: dev.token, json: { cover: cover.id, screenshots: [] } });
  }, 120_000);
  afterAll(() => publicServer?.stop());

  test('canonical, alternates, og:url, images and robots.txt are under PUBLIC_URL, whatever Host the request names', async () => {
    const { document } = await served(storePath(publicGame.project.id), { headers: { host: 'evil.example' } }, publicServer);
    const canonical = `https://games.example.com${storePath(publicGame.project.id)}`;
    expect(canonicalOf(document)).toBe(canonical);
    expect(metaOf(document, 'og:url')).toBe(canonical);
    expect(alternatesOf(document).every(([, href]) => href!.startsWith('https://games.example.com/store/'))).toBe(true);
    // A 640 px cover has no larger size: the largest made is the preview.
    expect(metaOf(document, 'og:image')).toMatch(/^https:\/\/games\.example\.com\/content-images\/[A-Za-z0-9_-]+\/640$/);
    const robots = await (await publicServer.fetch('/robots.txt', { headers: { host: 'evil.example' } })).text();
    expect(robots).toContain('Sitemap: https://games.example.com/api/store/sitemap.xml');
  });
});
