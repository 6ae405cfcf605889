/** Addresses of the project screens (spec §2); every segment is encoded, the router decodes it. */
const segment = encodeURIComponent;

export const projectsHref = '/projects';
export const projectHref = (project: string) => `/projects/${segment(project)}`;
export const manageHref = (project: string) => `${projectHref(project)}/manage`;
export const branchHref = (project: string, branch: string) => `${projectHref(project)}/branches/${segment(branch)}`;
/** A version page, reached from a branch (keeps the branch in the trail) or from the project. */
export const versionHref = (project: string, version: string, branch?: string) =>
  branch ? `${branchHref(project, branch)}/versions/${segment(version)}` : `${projectHref(project)}/versions/${segment(version)}`;
export const storeHref = (project: string) => `/store/${segment(project)}`;
export const inviteHref = (token: string) => `/invite?token=${segment(token)}`;
