import { useDom } from './setup.ts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { registerUser, type TestUser } from '../support/accounts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { listedProject, setStoreMedia, type ListedProject } from '../support/store-fixtures.ts';

/**
 * The store index, /store (issue 19), against the real server: a grid of covers (title linking to the
 * store page, developer, platforms, last update; a placeholder with initials where there is no cover),
 * a debounced search kept in the address (?q=, shareable, survives a reload), the reader's language
 * sent as `lang`, 'Show more' following the cursor, and the empty, no-match and error states.
 */
useDom();
setDefaultTimeout(180_000);
const { act, cleanup, fireEvent, render, within } = await import('@testing-library/react');
const { App } = await import('../../src/client/app.tsx');
const { until } = await import('./app-harness.tsx');
const { setApiOrigin, setBearerToken } = await import('../../src/client/lib/api.ts');
const { setLanguage } = await import('../../src/client/lib/i18n/index.ts');
const { searchDebounceMs, storePageSize } = await import('../../src/client/routes/store/store-index-page.tsx');

let server: TestServer;
let owner: TestUser;
const realFetch = globalThis.fetch;
/** tRPC procedures the page asked for, with their input (decoded). */
let requests: string[] = [];
/** While true, store.index answers 500. */
let failIndex = false;

beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server, 'ada_dev');
}, 60_000);
afterAll(async () => {
  cleanup();
  await server?.stop();
});
beforeEach(() => {
  setBearerToken(null);
  setApiOrigin(server.url);
  requests = [];
  failIndex = false;
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    if (url.pathname.startsWith('/trpc/')) {
      requests.push(decodeURIComponent(url.pathname + url.search));
      if (failIndex && url.pathname.includes('store.index')) {
        return new Response(JSON.stringify([{ error: { message: 'down', code: -32603, data: { code: 'INTERNAL_SERVER_ERROR', httpStatus: 500 } } }]), { status: 500, headers: { 'content-type': 'application/json' } });
      }
    }
    return realFetch(input, init);
  }) as typeof fetch;
});
afterEach(() => {
  globalThis.fetch = realFetch;
});


function openApp(url: string) {
  cleanup();
  history.replaceState(null, '', url);
  return render(<App />);
}

const main = () => document.querySelector('main#content') as HTMLElement;
const cards = () => [...document.querySelectorAll<HTMLElement>('.store_grid .store_card')];
const titles = () => cards().map((card) => card.querySelector('.store_card_title')?.textContent ?? '');
const status = () => document.querySelector('.store_index_status')?.textContent ?? '';
const searchBox = () => within(main()).getByRole('searchbox', { name: 'Search by title' }) as HTMLInputElement;

function type(value: string) {
  act(() => void fireEvent.change(searchBox(), { target: { value } }));
}

test('an empty store says nothing is published yet', async () => {
  openApp('/store');
  await until(() => expect(main()?.textContent).toContain('Nothing has been published in the store yet.'));
  expect(main().className).toContain('page_store_index');
  expect(document.title).toBe('Store - Cartridge');
  expect(within(main()).getByRole('heading', { level: 1 }).textContent).toBe('Store');
  expect(cards()).toHaveLength(0);
});

describe('with projects', () => {
  let zephyr: ListedProject;
  let orchard: ListedProject;
  let anger: ListedProject;
  beforeAll(async () => {
    zephyr = await listedProject(server, owner, 'Zephyr Quest', { platforms: ['linux', 'web'] });
    await setStoreMedia(server, owner, zephyr.project.id, { cover: { width: 1600, height: 900 } });
    orchard = await listedProject(server, owner, 'apple Orchard');
    anger = await listedProject(server, owner, 'Ärger Bay');
  }, 300_000);

  test('a grid of covers in the collator order: title linking to the store page, developer, platforms, last update; initials where there is no cover', async () => {
    openApp('/store');
    await until(() => expect(titles()).toEqual(['apple Orchard', 'Ärger Bay', 'Zephyr Quest']));
    expect(status()).toBe('Projects found: 3');
    const list = within(main()).getByRole('list', { name: 'Projects' });
    expect(list.className).toBe('store_grid');

    const [first, , last] = cards();
    // The title is the card's link (one name, one tab stop) to the store page.
    const link = within(last!).getByRole('link', { name: 'Zephyr Quest' });
    expect(link.getAttribute('href')).toBe(`/store/${zephyr.project.id}`);
    expect(within(last!).getByRole('heading', { level: 2 }).textContent).toBe('Zephyr Quest');
    expect(last!.querySelector('.store_card_owner')?.textContent).toBe('by ada_dev');
    const platforms = within(last!).getByRole('list', { name: 'Platforms' });
    expect([...platforms.querySelectorAll('li')].map((item) => [item.getAttribute('data-platform'), item.textContent])).toEqual([
      ['linux', 'Linux'],
      ['web', 'Web browser'],
    ]);
    const time = last!.querySelector('time')!;
    expect(Number.isNaN(Date.parse(time.getAttribute('datetime') ?? ''))).toBe(false);
    expect(time.textContent).toBe(`Updated ${new Intl.DateTimeFormat('en', { dateStyle: 'medium' }).format(new Date(time.getAttribute('datetime')!))}`);

    // The cover: decorative (the title names the card), sized, with every width the server made.
    const img = last!.querySelector('.store_card_cover img')!;
    expect(img.getAttribute('alt')).toBe('');
    expect([img.getAttribute('width'), img.getAttribute('height')]).toEqual(['1600', '900']);
    const id = /\/content-images\/([^/]+)\//.exec(img.getAttribute('src') ?? '')?.[1];
    expect(img.getAttribute('srcset')).toBe([320, 640, 960, 1280, 1600].map((width) => `/content-images/${id}/${width} ${width}w`).join(', '));
    expect(img.getAttribute('sizes')).toContain('17rem');
    // The first row loads at once; it is what a visitor sees first.
    expect(img.getAttribute('loading')).toBe('eager');

    // No cover: the initials on a tint of the project's own.
    expect(first!.querySelector('img')).toBeNull();
    const placeholder = first!.querySelector('.store_placeholder')!;
    expect(placeholder.getAttribute('aria-hidden')).toBe('true');
    expect(placeholder.textContent).toBe('AO');
    expect(Number(placeholder.getAttribute('data-tint'))).toBeWithin(0, 8);
    expect(cards()[1]!.querySelector('.store_placeholder')?.textContent).toBe('ÄB');
    // No packages: no platforms list.
    expect(within(first!).queryByRole('list', { name: 'Platforms' })).toBeNull();
    expect(anger.project.title).toBe('Ärger Bay');
    expect(orchard.project.title).toBe('apple Orchard');
  });

  test('search: debounced, in the address (?q=), survives a reload; no match says so and clears', async () => {
    openApp('/store');
    await until(() => expect(titles()).toHaveLength(3));
    type('zeph');
    // Not at once: the address changes after a pause in typing.
    expect(location.search).toBe('');
    await until(() => expect(location.search).toBe('?q=zeph'), searchDebounceMs * 10);
    await until(() => expect(titles()).toEqual(['Zephyr Quest']));
    expect(status()).toBe('Projects found: 1');
    expect(requests.some((request) => request.includes('"query":"zeph"'))).toBe(true);
    // Every key press did not make a request of its own.
    type('zephy');
    type('zephyr');
    await until(() => expect(location.search).toBe('?q=zephyr'), searchDebounceMs * 10);
    await until(() => expect(requests.some((request) => request.includes('"query":"zephyr"'))).toBe(true));
    expect(requests.some((request) => request.includes('"query":"zephy"'))).toBe(false);

    // A shared or reloaded address opens on its search, the box filled in.
    openApp('/store?q=orchard');
    await until(() => expect(titles()).toEqual(['apple Orchard']));
    expect(searchBox().value).toBe('orchard');

    type('no such game anywhere');
    await until(() => expect(main().textContent).toContain('No project matches “no such game anywhere”.'));
    expect(cards()).toHaveLength(0);
    expect(status()).toBe('Projects found: 0');
    act(() => void fireEvent.click(within(main()).getByRole('button', { name: 'Clear the search' })));
    expect(searchBox().value).toBe('');
    await until(() => expect(location.search).toBe(''), searchDebounceMs * 10);
    await until(() => expect(titles()).toHaveLength(3));
    // Escape in the box clears it too.
    type('apple');
    act(() => void fireEvent.keyDown(searchBox(), { key: 'Escape' }));
    expect(searchBox().value).toBe('');
  });

  test("the reader's language goes with every request as lang", async () => {
    act(() => void setLanguage('de'));
    openApp('/store');
    await until(() => expect(titles()).toHaveLength(3));
    expect(within(main()).getByRole('heading', { level: 1 }).textContent).toBe('Store');
    expect(status()).toBe('Gefundene Projekte: 3');
    const index = requests.filter((request) => request.includes('store.index'));
    expect(index.length).toBeGreaterThan(0);
    for (const request of index) expect(request).toContain('"lang":"de"');
    cleanup();
    act(() => void setLanguage('en'));
  });

  test('an error says so with Retry, which loads the grid', async () => {
    failIndex = true;
    openApp('/store');
    await until(() => expect(within(main()).getByRole('alert').textContent).toContain('Error'));
    failIndex = false;
    act(() => void fireEvent.click(within(within(main()).getByRole('alert')).getByRole('button', { name: 'Retry' })));
    await until(() => expect(titles()).toHaveLength(3));
  });

});

describe('more than a page of projects', () => {
  const word = `pagetest${Math.random().toString(36).slice(2, 6)}`;
  // A page and one more, made before the test (on a busy machine they take most of a minute).
  beforeAll(async () => {
    for (let i = 0; i < storePageSize + 1; i++) await listedProject(server, owner, `${word} ${String(i).padStart(2, '0')}`);
  }, 300_000);

  test("'Show more' follows the cursor (a failure said at the bottom, Retry); the first new card takes the focus; none on the last page", async () => {
    openApp(`/store?q=${word}`);
    await until(() => expect(titles()).toHaveLength(storePageSize));
    expect(status()).toBe(`Projects found: ${storePageSize + 1}`);
    expect(titles()[0]).toBe(`${word} 00`);
    expect(cards().filter((card) => card.querySelector('.store_placeholder')).length).toBe(storePageSize);
    // The next page fails: said at the bottom, the first page stays; Retry asks for it again.
    failIndex = true;
    act(() => void fireEvent.click(within(main()).getByRole('button', { name: 'Show more' })));
    await until(() => expect(within(main()).getByRole('alert').textContent).toContain('Error'));
    expect(titles()).toHaveLength(storePageSize);
    expect(within(main()).queryByRole('button', { name: 'Show more' })).toBeNull();
    failIndex = false;
    act(() => void fireEvent.click(within(within(main()).getByRole('alert')).getByRole('button', { name: 'Retry' })));
    await until(() => expect(titles()).toHaveLength(storePageSize + 1));
    expect(titles().at(-1)).toBe(`${word} ${String(storePageSize).padStart(2, '0')}`);
    await until(() => expect((document.activeElement as HTMLElement | null)?.textContent).toBe(`${word} ${String(storePageSize).padStart(2, '0')}`));
    expect(within(main()).queryByRole('alert')).toBeNull();
    expect(within(main()).queryByRole('button', { name: 'Show more' })).toBeNull();
    expect(requests.some((request) => request.includes('store.index') && request.includes('"cursor":"'))).toBe(true);
  });
});
