import { definePeriodicJob } from '../../../jobs/periodic-job.ts';
import { collectOrphanPackages } from './orphan-collect.service.ts';

/** Every hour: deletes packages in no version untouched for ORPHAN_PACKAGE_DAYS (orphan-collect.service.ts). */
export const orphanPackagesCollectJob = definePeriodicJob({
  kind: 'orphan_packages_collect',
  everyMs: 60 * 60_000,
  run: (deps, context) => collectOrphanPackages(deps, Date.now(), context),
});
