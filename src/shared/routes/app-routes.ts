import type { Route } from './match.ts';

/**
 * Every screen of the web client (spec §2), by name. The client binds each name to its page
 * (src/client/routes/routes.ts); the server matches the same table to answer 404 for paths no screen
 * shows (src/server/domains/pages/page-status.service.ts).
 */
export type ScreenName =
  | 'home'
  | 'signIn'
  | 'register'
  | 'oauth'
  | 'me'
  | 'docs'
  | 'experiment'
  | 'projectsList'
  | 'projectOverview'
  | 'projectManage'
  | 'branch'
  | 'version'
  | 'projectPackages'
  | 'package'
  | 'packagePlay'
  | 'packageCloudPlay'
  | 'storeIndex'
  | 'storeProject'
  | 'storePlay'
  | 'storeCloudPlay'
  | 'local'
  | 'invite'
  | 'admin';

/** packages/{package} with its play and cloud-play subpaths; reached from the project, a version or a branch's version. */
const packageRoutes: Route<ScreenName> = {
  segment: 'packages',
  children: [
    {
      segment: ':package',
      children: [
        { segment: '', view: 'package' },
        { segment: 'play', view: 'packagePlay' },
        { segment: 'cloud-play', view: 'packageCloudPlay' },
      ],
    },
  ],
};

const versionRoutes: Route<ScreenName> = { segment: 'versions', children: [{ segment: ':version', children: [{ segment: '', view: 'version' }, packageRoutes] }] };

/** Spec §2 routes. */
export const appRoutes: readonly Route<ScreenName>[] = [
  { segment: '', view: 'home' },
  { segment: 'login', view: 'signIn' },
  { segment: 'register', view: 'register' },
  // Spec §2 'oauth': the external sign-in callback.
  { segment: 'oauth', view: 'oauth' },
  { segment: 'me', view: 'me' },
  { segment: 'docs', children: [{ segment: ':lang', children: [{ segment: '', view: 'docs' }, { segment: ':page', view: 'docs' }] }] },
  { segment: 'experiment', view: 'experiment' },
  {
    segment: 'projects',
    children: [
      { segment: '', view: 'projectsList' },
      {
        segment: ':project',
        children: [
          { segment: '', view: 'projectOverview' },
          { segment: 'manage', view: 'projectManage' },
          { segment: 'branches', children: [{ segment: ':branch', children: [{ segment: '', view: 'branch' }, versionRoutes] }] },
          versionRoutes,
          // projects/{project}/packages: the project's packages screen, then each package's routes.
          { segment: 'packages', children: [{ segment: '', view: 'projectPackages' }, ...packageRoutes.children!] },
        ],
      },
    ],
  },
  {
    segment: 'store',
    children: [
      // The store index (issue 19; spec §2 left it 'in development'): a grid of covers, searchable.
      { segment: '', view: 'storeIndex' },
      {
        segment: ':project',
        children: [
          { segment: '', view: 'storeProject' },
          // store/{project}/{branch}/{package}/play and .../cloud-play
          {
            segment: ':branch',
            children: [{ segment: ':package', children: [{ segment: 'play', view: 'storePlay' }, { segment: 'cloud-play', view: 'storeCloudPlay' }] }],
          },
        ],
      },
    ],
  },
  // The local app: installed packages and root folders (spec §2 'local').
  { segment: 'local', view: 'local' },
  // The invite token travels in the query (?token=...).
  { segment: 'invite', view: 'invite' },
  // Spec §2's unlisted admin path: instance administrators only (others see not found).
  { segment: 'admin', view: 'admin' },
];

/** The same table with each screen's name replaced by what `bind` gives for it. */
export function bindRoutes<V>(table: readonly Route<ScreenName>[], bind: (name: ScreenName) => V): Route<V>[] {
  return table.map((route) => ({
    segment: route.segment,
    ...(route.view === undefined ? {} : { view: bind(route.view) }),
    ...(route.children === undefined ? {} : { children: bindRoutes(route.children, bind) }),
  }));
}
