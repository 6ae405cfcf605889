import { inArray } from 'drizzle-orm';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { jobs } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';

/**
 * Each deploy job works in its own folder, `{DATA_DIR}/tmp/deploys/{job id}` (archive, unpacked files,
 * butler's home). The folder goes when the job ends; a folder left by a server killed mid-deploy goes
 * when that job runs again, or when any later deploy starts and finds its job no longer running.
 */

const jobIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

export function deployFolderOf(deps: Pick<Deps, 'config'>, jobId: string): string {
  if (!jobIdPattern.test(jobId)) throw new Error(`not a job id: ${jobId}`);
  return join(deps.config.deploys.workDir, jobId);
}

/** A fresh, empty folder for the job (what an earlier attempt left is removed first). */
export async function prepareDeployFolder(deps: Pick<Deps, 'config'>, jobId: string): Promise<string> {
  const folder = deployFolderOf(deps, jobId);
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true, mode: 0o700 });
  return folder;
}

export async function removeDeployFolder(deps: Pick<Deps, 'config'>, jobId: string): Promise<void> {
  await rm(deployFolderOf(deps, jobId), { recursive: true, force: true });
}

/** Removes the folders of deploy jobs that are not running (finished, forgotten, or queued again after a crash). */
export async function sweepDeployFolders(deps: Pick<Deps, 'config' | 'db' | 'log'>): Promise<number> {
  let names: string[];
  try {
    names = (await readdir(deps.config.deploys.workDir)).filter((name) => jobIdPattern.test(name));
  } catch {
    return 0; // no deploy ran here yet
  }
  if (names.length === 0) return 0;
  const running = new Set(
    (await deps.db.select({ id: jobs.id, status: jobs.status }).from(jobs).where(inArray(jobs.id, names))).filter((row) => row.status === 'running').map((row) => row.id),
  );
  let removed = 0;
  for (const name of names) {
    if (running.has(name)) continue;
    await rm(join(deps.config.deploys.workDir, name), { recursive: true, force: true }).catch((error) =>
      deps.log.error('deploy folder not removed', { folder: name, error: String(error) }),
    );
    removed++;
  }
  return removed;
}
