import { describe, expect, test } from 'bun:test';
import { matchPathname, parsePathname, type Route } from '../../src/shared/routes/match.ts';

const routes: Route<string>[] = [
  { segment: '', view: 'home' },
  { segment: 'me', view: 'me' },
  { segment: 'docs', children: [{ segment: ':lang', children: [{ segment: '', view: 'docs-index' }, { segment: ':page', view: 'docs-page' }] }] },
  {
    segment: 'projects',
    children: [
      { segment: '', view: 'projects' },
      {
        segment: ':project',
        view: 'project',
        children: [
          { segment: 'manage', view: 'manage' },
          { segment: 'branches', children: [{ segment: ':branch', view: 'branch' }] },
        ],
      },
    ],
  },
  { segment: 'store', view: 'store', children: [{ segment: 'new', view: 'store-new' }, { segment: ':project', view: 'store-project' }] },
];

describe('parsePathname', () => {
  test('splits after the leading slash and decodes each segment', () => {
    expect(parsePathname('/')).toEqual(['']);
    expect(parsePathname('')).toEqual(['']);
    expect(parsePathname('/a/b%20c/%2F')).toEqual(['a', 'b c', '/']);
    expect(parsePathname('/caf%C3%A9')).toEqual(['café']);
  });
  test('one trailing slash is dropped, inner empty segments are kept', () => {
    expect(parsePathname('/me/')).toEqual(['me']);
    expect(parsePathname('/a//b')).toEqual(['a', '', 'b']);
  });
  test('a malformed escape gives undefined', () => {
    expect(parsePathname('/%E0%A4%A')).toBeUndefined();
    expect(parsePathname('/a/%zz')).toBeUndefined();
    expect(parsePathname('/%')).toBeUndefined();
  });
});

describe('matchPathname', () => {
  test('the empty path is the index', () => {
    expect(matchPathname(routes, '/')?.view).toBe('home');
    expect(matchPathname(routes, '')?.view).toBe('home');
  });
  test('literal routes, with or without a trailing slash', () => {
    expect(matchPathname(routes, '/me')?.view).toBe('me');
    expect(matchPathname(routes, '/me/')?.view).toBe('me');
  });
  test('nested parameters are captured decoded', () => {
    expect(matchPathname(routes, '/docs/en/getting-started')).toEqual({
      view: 'docs-page',
      params: { lang: 'en', page: 'getting-started' },
      segments: ['docs', 'en', 'getting-started'],
    });
    expect(matchPathname(routes, '/projects/p%20one/branches/b%2F1')).toMatchObject({ view: 'branch', params: { project: 'p one', branch: 'b/1' } });
    expect(matchPathname(routes, '/projects/p1/manage')).toMatchObject({ view: 'manage', params: { project: 'p1' } });
    expect(matchPathname(routes, '/projects/p1')).toMatchObject({ view: 'project', params: { project: 'p1' } });
  });
  test('a route without a view ends through its index child', () => {
    expect(matchPathname(routes, '/projects')?.view).toBe('projects');
    expect(matchPathname(routes, '/docs/en')).toMatchObject({ view: 'docs-index', params: { lang: 'en' } });
    expect(matchPathname(routes, '/docs/en/')).toMatchObject({ view: 'docs-index', params: { lang: 'en' } });
  });
  test('literals are tried in order before parameters at the same level', () => {
    expect(matchPathname(routes, '/store/new')?.view).toBe('store-new');
    expect(matchPathname(routes, '/store/other')).toMatchObject({ view: 'store-project', params: { project: 'other' } });
  });
  test('anything else is not found', () => {
    for (const path of ['/nope', '/me/extra', '/docs', '/projects/p1/branches', '/projects/p1/unknown/x', '/a//b', '/projects//manage', '/ME', '/me%2F'])
      expect(matchPathname(routes, path)).toBeUndefined();
  });
  test('a malformed escape is not found', () => {
    expect(matchPathname(routes, '/docs/en/%E0%A4%A')).toBeUndefined();
    expect(matchPathname(routes, '/projects/%')).toBeUndefined();
  });
  test('a parameter never captures an empty segment', () => {
    expect(matchPathname(routes, '/projects//branches/x')).toBeUndefined();
  });
});

describe('the app route table (shared by the client and the server page status)', () => {
  test('every spec §2 screen path matches its screen', async () => {
    const { appRoutes } = await import('../../src/shared/routes/app-routes.ts');
    const cases: [string, string | undefined][] = [
      ['/', 'home'],
      ['/login', 'signIn'],
      ['/docs/en/', 'docs'],
      ['/docs/en/api', 'docs'],
      ['/projects', 'projectsList'],
      ['/projects/p', 'projectOverview'],
      ['/projects/p/manage', 'projectManage'],
      ['/projects/p/branches/b', 'branch'],
      ['/projects/p/branches/b/versions/v', 'version'],
      ['/projects/p/branches/b/versions/v/packages/k/cloud-play', 'packageCloudPlay'],
      ['/projects/p/versions/v/packages/k', 'package'],
      ['/projects/p/packages/k/play', 'packagePlay'],
      ['/store', 'storeIndex'],
      ['/store/p', 'storeProject'],
      ['/store/p/b/k/play', 'storePlay'],
      ['/store/p/b/k/cloud-play', 'storeCloudPlay'],
      ['/local', 'local'],
      ['/invite', 'invite'],
      ['/admin', 'admin'],
    ];
    for (const [path, screen] of cases) expect({ path, screen: matchPathname(appRoutes, path)?.view as string | undefined }).toEqual({ path, screen });
    for (const path of ['/docs', '/store/p/b', '/store/p/b/k', '/projects/p/branches', '/projects/p/packages/k/other']) expect(matchPathname(appRoutes, path)).toBeUndefined();
  });
});
