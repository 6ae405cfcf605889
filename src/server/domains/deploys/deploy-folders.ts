import { inArray } from 'drizzle-orm';
import { mkdir, readdir, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { jobs } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';

/**
 * Each attempt of a deploy job works in a folder of its own, `{DATA_DIR}/tmp/deploys/{job id}/{attempt}`
 * (archive, unpacked files, butler's home): an attempt that lost its lease and runs on for a moment
 * never meets the files of the attempt that took the job over. The attempt removes its folder when it
 * ends; what a server killed mid-deploy left (or a fenced-off attempt) goes when any later deploy starts
 * and finds that attempt no longer the running one of its job.
 */

const jobIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

function jobFolderOf(deps: Pick<Deps, 'config'>, jobId: string): string {
  if (!jobIdPattern.test(jobId)) throw new Error(`not a job id: ${jobId}`);
  return join(deps.config.deploys.workDir, jobId);
}

function deployFolderOf(deps: Pick<Deps, 'config'>, jobId: string, attempt: number): string {
  if (!Number.isSafeInteger(attempt) || attempt < 0) throw new Error(`not an attempt: ${attempt}`);
  return join(jobFolderOf(deps, jobId), String(attempt));
}

/** A fresh, empty folder for this attempt of the job (nothing of another attempt is touched). */
export async function prepareDeployFolder(deps: Pick<Deps, 'config'>, jobId: string, attempt: number): Promise<string> {
  const folder = deployFolderOf(deps, jobId, attempt);
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true, mode: 0o700 });
  return folder;
}

/** Removes this attempt's folder, and the job's folder when no other attempt's is left in it. */
export async function removeDeployFolder(deps: Pick<Deps, 'config'>, jobId: string, attempt: number): Promise<void> {
  await rm(deployFolderOf(deps, jobId, attempt), { recursive: true, force: true });
  await rmdir(jobFolderOf(deps, jobId)).catch(() => {}); // another attempt's folder is still there, or it is gone
}

/**
 * Removes the folders of deploy attempts that are not running: of jobs that are not running (finished,
 * forgotten, queued again after a crash) and, in a running job's folder, those of its earlier attempts.
 */
export async function sweepDeployFolders(deps: Pick<Deps, 'config' | 'db' | 'log'>): Promise<number> {
  let names: string[];
  try {
    names = (await readdir(deps.config.deploys.workDir)).filter((name) => jobIdPattern.test(name));
  } catch {
    return 0; // no deploy ran here yet
  }
  if (names.length === 0) return 0;
  const running = new Map(
    (await deps.db.select({ id: jobs.id, status: jobs.status, attempts: jobs.attempts }).from(jobs).where(inArray(jobs.id, names)))
      .filter((row) => row.status === 'running')
      .map((row) => [row.id, String(row.attempts)]),
  );
  const remove = (path: string) =>
    rm(path, { recursive: true, force: true }).then(
      () => 1,
      (error) => {
        deps.log.error('deploy folder not removed', { folder: path, error: String(error) });
        return 0;
      },
    );
  let removed = 0;
  for (const name of names) {
    const folder = join(deps.config.deploys.workDir, name);
    const current = running.get(name);
    if (current === undefined) {
      removed += await remove(folder);
      continue;
    }
    const entries = await readdir(folder).catch(() => [] as string[]);
    for (const entry of entries) if (entry !== current) removed += await remove(join(folder, entry));
  }
  return removed;
}
