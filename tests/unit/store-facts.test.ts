import { describe, expect, test } from 'bun:test';
import { namesBranches, storeFacts } from '../../src/client/routes/store/store-facts.ts';
import type { StoreProject } from '../../src/shared/schemas/store.ts';

/** The store page's information table (issue 29): platforms, latest version and date, sizes, tags. */

type Branch = StoreProject['branches'][number];
const branch = (id: string, published: string, versionTitle: string, packages: { tags: string[]; size: number | null }[]): Branch => ({
  id,
  title: id,
  versionTitle,
  versionDescription: '',
  branchVersionPublished: published,
  packages: packages.map((item, index) => ({ id: `${id}-${index}`, title: `${id} ${index}`, ...item })),
});
const project = (branches: Branch[], extra: Record<string, unknown> = {}): StoreProject =>
  ({
    id: 'p',
    title: 'Game',
    owner: { title: 'ada', credentials: [] },
    storeTags: [],
    description: { markdown: '', lang: null, images: [] },
    media: { cover: null, screenshots: [] },
    branches,
    ...extra,
  }) as StoreProject;

describe('storeFacts', () => {
  test('platforms of every branch once each in tag order; the newest publish; the smallest and largest size', () => {
    const facts = storeFacts(
      project([
        branch('stable', '2026-01-05T10:00:00Z', '1.0', [{ tags: ['os:windows', 'arch:x86'], size: 3000 }, { tags: ['os:web'], size: 500 }]),
        branch('beta', '2026-03-01T10:00:00Z', '1.1-beta', [{ tags: ['os:linux'], size: null }, { tags: ['os:windows'], size: 9000 }]),
      ]),
    );
    expect(facts.platforms).toEqual(['os:windows', 'os:linux', 'os:web']);
    expect(facts.latest).toEqual({ versionTitle: '1.1-beta', published: '2026-03-01T10:00:00Z' });
    expect(facts.sizes).toEqual({ min: 500, max: 9000 });
    expect(facts.tags).toEqual([]);
  });

  test('nothing published: no platforms, no latest version, no size', () => {
    expect(storeFacts(project([]))).toEqual({ platforms: [], latest: null, sizes: null, tags: [] });
    expect(storeFacts(project([branch('main', '2026-01-01T00:00:00Z', '1.0', [{ tags: [], size: null }])])).sizes).toBeNull();
  });

  test("the project's store tags, in the owner's order", () => {
    expect(storeFacts(project([], { storeTags: ['puzzle', 'co-op'] })).tags).toEqual(['puzzle', 'co-op']);
  });

  test('a single public branch is not named; several are', () => {
    expect(namesBranches(project([branch('main', '2026-01-01T00:00:00Z', '1.0', [])]))).toBe(false);
    expect(namesBranches(project([branch('a', '2026-01-01T00:00:00Z', '1.0', []), branch('b', '2026-01-01T00:00:00Z', '1.0', [])]))).toBe(true);
  });
});
