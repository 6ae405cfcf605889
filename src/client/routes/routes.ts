import { lazy, type ComponentType } from 'react';
import type { trpc } from '../lib/trpc.ts';
import { appRoutes, bindRoutes, type ScreenName } from '../../shared/routes/app-routes.ts';
import type { Route } from '../../shared/routes/match.ts';
import HomePage from './home/home-page.tsx';

export type ViewProps = { params: Record<string, string> };

export type RouteView = {
  component: ComponentType<ViewProps>;
  /** Reachable without signing in even when the instance requires it (the sign-in screens). */
  public?: boolean;
  /**
   * Started as soon as the app knows the address, beside the session check: the screen's code and
   * its first data, which would otherwise wait for the session, then the chunk, one after the other.
   */
  preload?: (params: Record<string, string>, utils: ReturnType<typeof trpc.useUtils>) => void;
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
const storeProjectChunk = () => import('./store/store-project-page.tsx');
const StoreProjectPage = lazy(storeProjectChunk);
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

export const RequiredSignInPage = lazy(() => import('./sign-in/required-sign-in-page.tsx'));
export const NotFoundPage = lazy(() => import('./not-found/not-found-page.tsx'));

/** The page of each screen of the shared table (src/shared/routes/app-routes.ts). */
const screens: Record<ScreenName, RouteView> = {
  home: { component: HomePage },
  // Reachable without signing in: the sign-in screens and spec §2's 'oauth' callback they finish.
  signIn: { component: SignInPage, public: true },
  register: { component: RegisterPage, public: true },
  oauth: { component: OauthPage, public: true },
  me: { component: MePage },
  docs: { component: DocsPage },
  experiment: { component: ExperimentPage },
  projectsList: { component: ProjectsListPage },
  projectOverview: { component: ProjectOverviewPage },
  projectManage: { component: ManagePage },
  branch: { component: BranchPage },
  version: { component: VersionPage },
  projectPackages: { component: PackagesPage },
  package: { component: PackagePage },
  packagePlay: { component: PackagePlayPage },
  packageCloudPlay: { component: PackageCloudPlayPage },
  storeIndex: { component: StoreIndexPage },
  // The store page is what visitors arrive on from outside (its paint is the figure: bench:store).
  storeProject: {
    component: StoreProjectPage,
    preload: (params, utils) => {
      void storeProjectChunk();
      if (params.project) void utils.store.project.prefetch({ project: params.project });
    },
  },
  storePlay: { component: StorePlayPage },
  storeCloudPlay: { component: StoreCloudPlayPage },
  local: { component: LocalPage },
  invite: { component: InvitePage },
  admin: { component: AdminPage },
};

/** Spec §2 routes. */
export const routes: Route<RouteView>[] = bindRoutes(appRoutes, (name) => screens[name]);
