import type { ApiClient } from '../shared/api/client.ts';
import { ApiError } from '../shared/api/errors.ts';
import { routes } from '../shared/api/routes.ts';
import type { Branch } from '../shared/schemas/branches.ts';
import { CliError, exitCodes } from './errors.ts';

export type ProjectRef = { id: string; title: string; userPossibleActions?: string[] };

/** 'PROJECT/BRANCH' → its two halves; each may be an id or a title. */
export function parseTarget(text: string | undefined, needBranch: boolean): { project: string; branch?: string } {
  if (!text) throw new CliError(exitCodes.usage, needBranch ? 'missing PROJECT/BRANCH' : 'missing PROJECT');
  const slash = text.indexOf('/');
  const project = slash < 0 ? text : text.slice(0, slash);
  const branch = slash < 0 ? undefined : text.slice(slash + 1);
  if (!project || branch === '' || (needBranch && !branch)) throw new CliError(exitCodes.usage, `expected PROJECT/BRANCH, got '${text}'`);
  return { project, branch };
}

/** A project by id, else by title among the caller's projects (titles are what people type). */
export async function findProject(api: ApiClient, text: string): Promise<ProjectRef> {
  try {
    const project = await api.call(routes.projects.get, { params: { project: text } });
    return { id: project.id, title: project.title, userPossibleActions: project.userPossibleActions };
  } catch (error) {
    // No such id, or text that cannot be an id at all (a title with spaces): look it up by title.
    if (!(error instanceof ApiError) || (error.code !== 'not_found' && error.code !== 'bad_param')) throw error;
  }
  const mine = await api.call(routes.projects.mine);
  const matches = mine.filter((project) => project.title === text);
  if (matches.length === 1) return findProject(api, matches[0]!.id);
  if (matches.length > 1) throw new CliError(exitCodes.usage, `several projects are titled '${text}': use the id (${matches.map((p) => p.id).join(', ')})`);
  throw new CliError(exitCodes.notFound, `project '${text}' not found`);
}

export function listBranches(api: ApiClient, project: ProjectRef): Promise<Branch[]> {
  return api.call(routes.projects.branches.list, { params: { project: project.id } });
}

export async function findBranch(api: ApiClient, project: ProjectRef, text: string): Promise<Branch> {
  const branches = await listBranches(api, project);
  const branch = branches.find((item) => item.id === text) ?? branches.find((item) => item.title === text);
  if (!branch) throw new CliError(exitCodes.notFound, `branch '${text}' not found in ${project.title}`);
  return branch;
}
