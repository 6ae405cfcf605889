import { appRoutes, type ScreenName } from '../../../shared/routes/app-routes.ts';
import { matchPathname } from '../../../shared/routes/match.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../auth/actor.ts';
import { getDocsPage } from '../docs/docs.service.ts';
import { getProject } from '../projects/projects.service.ts';
import { getStoreProject } from '../store/store.service.ts';

/** 404: the page shows the client's not-found screen; crawlers must not index it (no soft 404). */
export type PageStatus = 200 | 404;

/** Screens under /projects/{project}: shown when the caller may see the project (public, or a member). */
const projectScreens = new Set<ScreenName>(['projectOverview', 'projectManage', 'projectPackages', 'branch', 'version', 'package', 'packagePlay', 'packageCloudPlay']);
/** Screens shown to anyone even when the instance requires signing in (RouteView.public in the client). */
const publicScreens = new Set<ScreenName>(['signIn', 'register', 'oauth']);

/** recordIdSchema's rule: an id of another shape names nothing, asked of no table. */
const idPattern = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The HTTP status of the app page at `pathname` for this caller, by the client's own route table and
 * the same reads its screen makes: an unknown path, a store page the store does not show (private,
 * unknown, a branch or package it does not list), a project the caller cannot see, a docs page that
 * does not exist and /admin for anyone but an instance administrator are 404, as their screens say
 * "not found". The caller is resolved only when the answer depends on it.
 */
export async function pageStatusOf(deps: Deps, caller: () => Promise<Actor>, pathname: string): Promise<PageStatus> {
  if (pathname.length > 2000) return 404;
  const match = matchPathname(appRoutes, pathname);
  if (!match) return 404;
  const screen = match.view;
  const { params } = match;
  // A visitor of an instance that requires signing in sees the sign-in screen on every known path.
  if (deps.config.authRequired && !publicScreens.has(screen) && (await caller()).kind !== 'user') return 200;
  if (screen === 'storeProject' || screen === 'storePlay' || screen === 'storeCloudPlay') return storeStatus(deps, params);
  if (projectScreens.has(screen)) {
    if (!idPattern.test(params.project ?? '')) return 404;
    return found(async () => getProject(deps, await caller(), params.project!));
  }
  if (screen === 'docs') return found(() => getDocsPage(deps.docs, params.lang ?? '', params.page ?? ''));
  if (screen === 'admin') {
    const actor = await caller();
    return actor.kind === 'user' && actor.isAdmin ? 200 : 404;
  }
  return 200;
}

/** The store page as anyone sees it (cached, unknown ids too); play pages need their branch and package listed. */
async function storeStatus(deps: Deps, params: Record<string, string>): Promise<PageStatus> {
  const projectId = params.project ?? '';
  if (!idPattern.test(projectId)) return 404;
  let project;
  try {
    project = await getStoreProject(deps, projectId, { signedIn: false });
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') return 404;
    throw error;
  }
  if (params.package === undefined) return 200;
  const branch = project.branches.find((item) => item.id === params.branch);
  return branch?.packages.some((item) => item.id === params.package) ? 200 : 404;
}

/** 200 when the read succeeds, 404 when it is not_found (or names nothing valid: bad_param). */
async function found(read: () => Promise<unknown>): Promise<PageStatus> {
  try {
    await read();
    return 200;
  } catch (error) {
    if (error instanceof AppError && (error.code === 'not_found' || error.code === 'bad_param')) return 404;
    throw error;
  }
}
