import { lazy, type ComponentType } from 'react';
import type { Route } from '../lib/router/match.ts';
import HomePage from './home/home.tsx';

export type ViewProps = { params: Record<string, string> };

export type RouteView = {
  component: ComponentType<ViewProps>;
  /** Reachable without signing in even when the instance requires it (the sign-in screens). */
  public?: boolean;
};

// Home ships with the shell (the first paint of most visits); every other screen is its own chunk.
const SignInPage = lazy(() => import('./sign-in/sign-in.tsx'));
const RegisterPage = lazy(() => import('./sign-in/register.tsx'));
const MePage = lazy(() => import('./me/me.tsx'));
const DocsPage = lazy(() => import('./docs/docs.tsx'));
const ExperimentPage = lazy(() => import('./experiment/experiment.tsx'));
const InDevelopmentPage = lazy(() => import('../components/in-development.tsx'));
export const RequiredSignInPage = lazy(() => import('./sign-in/required.tsx'));
export const NotFoundPage = lazy(() => import('./not-found/not-found.tsx'));

/** Spec §2 routes; later issues add projects, store, local, oauth, invite and admin. */
export const routes: Route<RouteView>[] = [
  { segment: '', view: { component: HomePage } },
  { segment: 'login', view: { component: SignInPage, public: true } },
  { segment: 'register', view: { component: RegisterPage, public: true } },
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
  // Placeholders until their issues land, so the home page never links to a not-found page.
  { segment: 'projects', view: { component: InDevelopmentPage } },
  { segment: 'store', view: { component: InDevelopmentPage } },
];
