import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import {
  deployVersionInput,
  deployStateOf,
  findSharedChannel,
  noPackagesToDeployMessage,
  sharedChannelMessage,
  type DeployJob,
  type StartedDeploy,
} from '../../../shared/schemas/deploy.ts';
import { packageTitle } from '../../../shared/packages/package-name.ts';
import type { Executor } from '../../db/client.ts';
import { deploySites, jobs, packages, users, versionPackages, versions } from '../../db/schema/index.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound, refusal } from '../../errors.ts';
import type { Job } from '../../jobs/queue.ts';
import type { Actor } from '../auth/actor.ts';
import { issueJobToken } from '../job-status/job-tokens.ts';
import { loadProjectAccess, requireAction, requireMember } from '../projects/access.ts';
import { butlerMissing, findButler } from './butler.ts';
import { deployJob } from './deploy.job.ts';
import { steamNotSupported } from './deploys.service.ts';

type DeployJobPayload = Parameters<typeof deployJob.enqueue>[1];

function describeDeployJob(deps: Deps, job: Job): DeployJob {
  const payload = job.payload as DeployJobPayload;
  return {
    job: job.id,
    token: issueJobToken(deps, job.id),
    package: payload.packageId,
    packageTitle: payload.packageTitle,
    versionId: payload.versionId,
    siteId: payload.siteId,
    site: payload.site,
    provider: payload.provider,
    channel: payload.channel,
    status: job.status,
    state: deployStateOf(job.status, job.stage),
    created: job.createdAt.toISOString(),
    startedBy: payload.startedBy,
  };
}

async function findVersion(db: Executor, projectId: string, versionId: string) {
  const [row] = await db
    .select({ id: versions.id, title: versions.title })
    .from(versions)
    .where(and(eq(versions.id, versionId), eq(versions.projectId, projectId)));
  if (!row) throw notFound('version');
  return row;
}

/** Deploy jobs of one site and channel that have not finished (queued, or running). */
async function unfinishedDeploys(db: Executor, siteId: string, channel: string): Promise<Job[]> {
  return db
    .select()
    .from(jobs)
    .where(
      and(
        eq(jobs.kind, deployJob.kind),
        inArray(jobs.status, ['queued', 'running']),
        sql`${jobs.payload}->>'siteId' = ${siteId}`,
        sql`${jobs.payload}->>'channel' = ${channel}`,
      ),
    );
}

/**
 * POST /projects/{project}/versions/{version}/deploy {site, packages[{package, channel}]}
 * (deployVersionToSite): one deploy job per package, returned in the request's order with their tokens.
 * Refusals (spec §5): no packages; two packages on one channel (both bad_param with the spec's words);
 * a package not in the version (not_found, details.index) or not ready (not_finalized); Steam and a
 * server without butler (not_supported). A deploy of the same package to the same site and channel
 * that has not finished answers that job; one of another package to that channel is name_conflict, so
 * two pushes never run on one channel at once.
 */
export async function deployVersion(deps: Deps, actor: Actor, projectId: string, versionId: string, rawInput: unknown): Promise<StartedDeploy> {
  const input = deployVersionInput.parse(rawInput);
  const started = await deps.db.transaction(async (tx) => {
    const access = await loadProjectAccess({ db: tx }, actor, projectId);
    requireAction(access, 'deployVersionToSite');
    const version = await findVersion(tx, projectId, versionId);
    if (input.packages.length === 0) throw refusal('bad_param', noPackagesToDeployMessage, 'no_packages', { field: 'packages' });
    const shared = findSharedChannel(input.packages);
    if (shared) throw refusal('bad_param', sharedChannelMessage(shared.count, shared.channel), 'shared_channel', { field: 'packages', channel: shared.channel, count: shared.count });
    // The site's row lock serialises deploys to it, so the unfinished-deploy check below holds.
    const [site] = await tx
      .select()
      .from(deploySites)
      .where(and(eq(deploySites.id, input.site), eq(deploySites.projectId, projectId)))
      .for('update');
    if (!site) throw notFound('deploy-site');
    if (site.provider === 'steam') throw steamNotSupported();
    if (!findButler(deps.config.deploys)) throw butlerMissing();

    const ids = input.packages.map((entry) => entry.package);
    const rows = await tx
      .select({ id: packages.id, title: packages.title, tags: packages.tags, status: packages.status })
      .from(packages)
      .innerJoin(versionPackages, eq(versionPackages.packageId, packages.id))
      .where(and(eq(versionPackages.versionId, version.id), inArray(packages.id, ids)));
    const byId = new Map(rows.map((row) => [row.id, row]));
    input.packages.forEach((entry, index) => {
      const row = byId.get(entry.package);
      if (!row) throw new AppError('not_found', `package not found in this version`, { index, field: 'packages' });
      if (row.status !== 'ready') throw new AppError('not_finalized', `The package '${packageTitle(row)}' is not ready yet`, { index });
    });

    const [starter] = actor.kind === 'user' ? await tx.select({ title: users.title }).from(users).where(eq(users.id, actor.userId)) : [];
    const result: Job[] = [];
    for (const entry of input.packages) {
      const running = await unfinishedDeploys(tx, site.id, entry.channel);
      const same = running.find((job) => (job.payload as DeployJobPayload).packageId === entry.package);
      if (same) {
        result.push(same);
        continue;
      }
      if (running.length > 0) {
        throw refusal('name_conflict', `Another package is still being deployed to channel ${entry.channel} of ${site.site}: wait until it finishes`, 'channel_busy', {
          field: 'packages',
          channel: entry.channel,
        });
      }
      const row = byId.get(entry.package)!;
      const job = await deployJob.enqueue(
        tx,
        {
          siteId: site.id,
          packageId: row.id,
          versionId: version.id,
          versionTitle: version.title,
          channel: entry.channel,
          site: site.site,
          provider: site.provider,
          packageTitle: packageTitle(row),
          startedBy: starter?.title ?? null,
        },
        { projectId, dedupeKey: `deploy:${site.id}:${entry.channel}` },
      );
      if (!job) throw new AppError('unexpected_error', 'The deploy job could not be queued');
      result.push(job as Job);
    }
    return result;
  });
  deps.jobSignal.notify();
  return { jobs: started.map((job) => describeDeployJob(deps, job)) };
}

/** How many of a version's deploys the list shows (finished jobs are forgotten after a week anyway). */
const listedDeploys = 50;

/** GET /projects/{project}/versions/{version}/deploys: the version's deploy jobs, newest first (members). */
export async function listVersionDeploys(deps: Deps, actor: Actor, projectId: string, versionId: string): Promise<DeployJob[]> {
  const access = await loadProjectAccess(deps, actor, projectId);
  requireMember(access);
  await findVersion(deps.db, projectId, versionId);
  const rows = await deps.db
    .select()
    .from(jobs)
    .where(and(eq(jobs.kind, deployJob.kind), eq(jobs.projectId, projectId), sql`${jobs.payload}->>'versionId' = ${versionId}`))
    .orderBy(desc(jobs.createdAt), desc(jobs.id))
    .limit(listedDeploys);
  return rows.map((row) => describeDeployJob(deps, row));
}
