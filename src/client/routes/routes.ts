import { lazy, type ComponentType } from 'react';
import type { Route } from '../lib/router/match.ts';
import HomePage from './home/home-page.tsx';

export type ViewProps = { params: Record<string, string> };

export type RouteView = {
  component: ComponentType<ViewProps>;
  /** Reachable without signing in even when the instance requires it (the sign-in screens). */
  public?: boolean;
};

// Home ships with the shell (the first paint of most visits); every other screen is its own chunk.
const SignInPage = lazy(() => import('./sign-in/sign-in-page.tsx'));
const RegisterPage = lazy(() => import('./sign-in/register-page.tsx'));
const MePage = lazy(() => import('./me/me-page.tsx'));
const DocsPage = lazy(() => import('./docs/docs-page.tsx'));
const ExperimentPage = lazy(() => import('./experiment/experiment-page.tsx'));
const ProjectsListPage = lazy(() => import('./projects/list/projects-list-page.tsx'));
const ProjectOverviewPage = lazy(() => import('./projects/overview/project-overview-page.tsx'));
const BranchPage = lazy(() => import('./projects/branch/branch-page.tsx'));
const VersionPage = lazy(() => import('./projects/version/version-page.tsx'));
const ManagePage = lazy(() => import('./projects/manage/manage-page.tsx'));
const StoreIndexPage = lazy(() => import('./store/store-index-page.tsx'));
const StoreProjectPage = lazy(() => import('./store/store-project-page.tsx'));
const InvitePage = lazy(() => import('./invite/invite-page.tsx'));
const PackagePage = lazy(() => import('./projects/package/package-page.tsx'));
const PackagesPage = lazy(() => import('./projects/packages/packages-page.tsx'));
const PackagePlayPage = lazy(() => import('./projects/package/package-play-page.tsx'));
const PackageCloudPlayPage = lazy(() => import('./projects/package/package-cloud-play-page.tsx'));
const StorePlayPage = lazy(() => import('./store/store-play-page.tsx'));
const StoreCloudPlayPage = lazy(() => import('./store/store-cloud-play-page.tsx'));
const AdminPage = lazy(() => import('./admin/admin-page.tsx'));
const OauthPage = lazy(() => import('./oauth/oauth-page.tsx'));
const LocalPage = lazy(() => import('./local/local-page.tsx'));

/** packages/{package} with its play and cloud-play subpaths; reached from the project, a version or a branch's version. */
const packageRoutes: Route<RouteView> = {
  segment: 'packages',
  children: [
    {
      segment: ':package',
      children: [
        { segment: '', view: { component: PackagePage } },
        { segment: 'play', view: { component: PackagePlayPage } },
        { segment: 'cloud-play', view: { component: PackageCloudPlayPage } },
      ],
    },
  ],
};
/** projects/{project}/packages: the project's packages screen, then each package's routes. */
const projectPackageRoutes: Route<RouteView> = {
  segment: 'packages',
  children: [{ segment: '', view: { component: PackagesPage } }, ...packageRoutes.children!],
};
export const RequiredSignInPage = lazy(() => import('./sign-in/required-sign-in-page.tsx'));
export const NotFoundPage = lazy(() => import('./not-found/not-found-page.tsx'));

/** Spec §2 routes. */
export const routes: Route<RouteView>[] = [
  { segment: '', view: { component: HomePage } },
  { segment: 'login', view: { component: SignInPage, public: true } },
  { segment: 'register', view: { component: RegisterPage, public: true } },
  // Spec §2 'oauth': the external sign-in callback, public like the sign-in screens it finishes.
  { segment: 'oauth', view: { component: OauthPage, public: true } },
  { segment: 'me', view: { component: MePage } },
  {
    segment: 'docs',
    children: [
      {
        segment: ':lang',
        children: [
          { segment: '', view: { component: DocsPage } },
          { segment: ':page', view: { component: DocsPage } },
        ],
      },
    ],
  },
  { segment: 'experiment', view: { component: ExperimentPage } },
  {
    segment: 'projects',
    children: [
      { segment: '', view: { component: ProjectsListPage } },
      {
        segment: ':project',
        children: [
          { segment: '', view: { component: ProjectOverviewPage } },
          { segment: 'manage', view: { component: ManagePage } },
          {
            segment: 'branches',
            children: [
              {
                segment: ':branch',
                children: [
                  { segment: '', view: { component: BranchPage } },
                  {
                    segment: 'versions',
                    children: [{ segment: ':version', children: [{ segment: '', view: { component: VersionPage } }, packageRoutes] }],
                  },
                ],
              },
            ],
          },
          { segment: 'versions', children: [{ segment: ':version', children: [{ segment: '', view: { component: VersionPage } }, packageRoutes] }] },
          projectPackageRoutes,
        ],
      },
    ],
  },
  {
    segment: 'store',
    children: [
      // The store index (issue 19; spec §2 left it 'in development'): a grid of covers, searchable.
      { segment: '', view: { component: StoreIndexPage } },
      {
        segment: ':project',
        children: [
          { segment: '', view: { component: StoreProjectPage } },
          // store/{project}/{branch}/{package}/play and .../cloud-play
          {
            segment: ':branch',
            children: [
              {
                segment: ':package',
                children: [
                  { segment: 'play', view: { component: StorePlayPage } },
                  { segment: 'cloud-play', view: { component: StoreCloudPlayPage } },
                ],
              },
            ],
          },
        ],
      },
    ],
  },
  // The local app: installed packages and root folders (spec §2 'local').
  { segment: 'local', view: { component: LocalPage } },
  // The invite token travels in the query (?token=...).
  { segment: 'invite', view: { component: InvitePage } },
  // Spec §2's unlisted admin path: instance administrators only (others see not found).
  { segment: 'admin', view: { component: AdminPage } },
];
