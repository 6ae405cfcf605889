/** Addresses of the project screens (spec §2); every segment is encoded, the router decodes it. */
const segment = encodeURIComponent;

export const projectsHref = '/projects';
export const projectHref = (project: string) => `/projects/${segment(project)}`;
export const manageHref = (project: string) => `${projectHref(project)}/manage`;
/** The project's packages screen: every package, the versions each is in. */
export const packagesHref = (project: string) => `${projectHref(project)}/packages`;
export const branchHref = (project: string, branch: string) => `${projectHref(project)}/branches/${segment(branch)}`;
/** A version page, reached from a branch (keeps the branch in the trail) or from the project. */
export const versionHref = (project: string, version: string, branch?: string) =>
  branch ? `${branchHref(project, branch)}/versions/${segment(version)}` : `${projectHref(project)}/versions/${segment(version)}`;
export const storeHref = (project: string) => `/store/${segment(project)}`;
export const inviteHref = (token: string) => `/invite?token=${segment(token)}`;
/** A package page: through a branch's version, a version, or the project (spec §2). */
export const packageHref = (project: string, pkg: string, via: { version?: string; branch?: string } = {}) =>
  via.version ? `${versionHref(project, via.version, via.branch)}/packages/${segment(pkg)}` : `${projectHref(project)}/packages/${segment(pkg)}`;
export const packagePlayHref = (project: string, pkg: string, via: { version?: string; branch?: string } = {}) => `${packageHref(project, pkg, via)}/play`;
export const packageCloudPlayHref = (project: string, pkg: string, via: { version?: string; branch?: string } = {}) => `${packageHref(project, pkg, via)}/cloud-play`;
export const storePlayHref = (project: string, branch: string, pkg: string) => `${storeHref(project)}/${segment(branch)}/${segment(pkg)}/play`;
export const storeCloudPlayHref = (project: string, branch: string, pkg: string) => `${storeHref(project)}/${segment(branch)}/${segment(pkg)}/cloud-play`;
