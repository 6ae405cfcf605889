import { adminOperations } from '../domains/admin/admin.operations.ts';
import { authOperations } from '../domains/auth/auth.operations.ts';
import { playOperations } from '../domains/browser-play/browser-play.operations.ts';
import { cloudMachineOperations, cloudPlayOperations } from '../domains/cloud-play/cloud-play.operations.ts';
import { contentImageOperations } from '../domains/content-images/content-images.operations.ts';
import { deployCredentialOperations, deploySiteOperations, versionDeployOperations } from '../domains/deploys/deploys.operations.ts';
import { docsOperations } from '../domains/docs/docs.operations.ts';
import { instanceOperations } from '../domains/instance/instance.operations.ts';
import { jobOperations } from '../domains/job-status/job-status.operations.ts';
import { localAppOperations } from '../domains/local-app/local-app.operations.ts';
import { packageDownloadOperations } from '../domains/packages/downloads/downloads.operations.ts';
import { packageOperations } from '../domains/packages/packages.operations.ts';
import { branchOperations } from '../domains/projects/branches.operations.ts';
import { inviteOperations } from '../domains/projects/invites.operations.ts';
import { descriptionOperations, memberOperations, projectOperations, starOperations } from '../domains/projects/projects.operations.ts';
import { versionOperations } from '../domains/projects/versions.operations.ts';
import { mediaOperations } from '../domains/content-images/project-media.operations.ts';
import { storeOperations } from '../domains/store/store.operations.ts';
import { sessionOperations, userOperations } from '../domains/users/users.operations.ts';
import { isBoundOperation, type BoundOperation } from './binding.ts';

/**
 * Every operation of the route table (src/shared/api/routes.ts) with its binding, in the table's shape:
 * the tRPC router takes its names from here and the REST routes their paths from the rows.
 * tests/unit/operations.test.ts checks this tree and the table hold the same rows under the same names.
 */
export const operations = {
  auth: authOperations,
  users: { ...userOperations, sessions: sessionOperations },
  admin: { ...adminOperations, cloudMachines: cloudMachineOperations },
  instance: instanceOperations,
  projects: {
    ...projectOperations,
    description: descriptionOperations,
    media: mediaOperations,
    star: starOperations,
    users: memberOperations,
    invites: inviteOperations,
    branches: branchOperations,
    versions: versionOperations,
  },
  deploys: { credentials: deployCredentialOperations, sites: deploySiteOperations, version: versionDeployOperations },
  store: storeOperations,
  packages: packageOperations,
  packageDownloads: packageDownloadOperations,
  contentImages: contentImageOperations,
  play: playOperations,
  cloudPlay: cloudPlayOperations,
  jobs: jobOperations,
  localApp: localAppOperations,
  docs: docsOperations,
};

/** An operation with its dotted name in the tree ('cloudPlay.init'): the tRPC path, the table's key. */
export type NamedOperation = BoundOperation & { name: string };

/** The tree's operations as a list, in the table's order. */
export function operationList(tree: unknown = operations, prefix = ''): NamedOperation[] {
  return Object.entries(tree as Record<string, unknown>).flatMap(([key, node]) =>
    isBoundOperation(node) ? [{ ...node, name: `${prefix}${key}` }] : operationList(node, `${prefix}${key}.`),
  );
}
