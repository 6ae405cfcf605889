import { useEffect, useId } from 'react';
import { version_deploys_heading } from '../../../../shared/i18n/paraglide/messages/version_deploys_heading.js';
import { version_deploys_intro } from '../../../../shared/i18n/paraglide/messages/version_deploys_intro.js';
import { version_deploys_started } from '../../../../shared/i18n/paraglide/messages/version_deploys_started.js';
import { version_deploys_started_gone } from '../../../../shared/i18n/paraglide/messages/version_deploys_started_gone.js';
import { DeployChannel, DeployJobStatus } from '../../../components/deploy-job.tsx';
import { ErrorState } from '../../../components/states.tsx';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { openDeployToSiteDialog } from '../../../dialogs/deploy-to-site-dialog.tsx';
import { deployProviderLabels } from '../../../lib/deploy-providers.ts';
import { forgetStoredDeploy, isFinished, isRefusal, readStoredDeploy, useWatchedJobs } from '../../../lib/deploy-jobs.ts';
import { useLanguage } from '../../../lib/i18n/index.ts';
import { rich, slot } from '../../../lib/i18n/rich.tsx';
import { trpc } from '../../../lib/trpc.ts';
import { formatDateTime } from '../../../../shared/format/date.ts';
import { projectRoleNames, type Project } from '../../../../shared/schemas/projects.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { version_deploys_heading, version_deploys_intro, version_deploys_started, version_deploys_started_gone };

/** An approved member of the project (the deploys list is theirs: GET .../deploys answers members only). */
function isProjectMember(project: Project): boolean {
  return !project.userIsPending && (project.userIsOwner || (projectRoleNames as readonly string[]).includes(project.userRole ?? ''));
}

/** Jobs followed live at most (POST /jobs and GET /jobs take 100 tokens). */
const watchedAtMost = 100;

/**
 * The version's 'Deploys' (members only; hidden while empty): its deploy jobs of the last week, newest
 * first, whoever started them, each with its live state (watchJobs) until it finished, the itch.io build or
 * the reason it failed, and its output.
 */
export function VersionDeploys({ project, versionId }: { project: Project; versionId: string }) {
  const headingId = useId();
  const member = isProjectMember(project);
  const { language } = useLanguage();
  const deploys = trpc.deploys.version.list.useQuery({ project: project.id, version: versionId }, { enabled: member });
  const listed = deploys.data ?? [];
  const watched = useWatchedJobs(listed.slice(0, watchedAtMost).map((job) => job.token));
  if (!member) return null;
  if (deploys.error) {
    return (
      <section className="section version_deploys" aria-labelledby={headingId}>
        <h2 id={headingId}>{m.version_deploys_heading()}</h2>
        <ErrorState error={deploys.error} onRetry={() => void deploys.refetch()} />
      </section>
    );
  }
  if (listed.length === 0) return null;
  return (
    <section className="section version_deploys" aria-labelledby={headingId} data-testid="version-deploys">
      <h2 id={headingId}>{m.version_deploys_heading()}</h2>
      <p className="section_intro">{m.version_deploys_intro()}</p>
      <ul className="item_list deploy_job_list">
        {listed.map((job, index) => {
          const date = <time dateTime={job.created}>{formatDateTime(job.created, language)}</time>;
          return (
            <li key={job.job} className="item deploy_job_item" data-job={job.job}>
              <DeployJobStatus packageTitle={job.packageTitle} channel={job.channel} watched={watched.jobs[index]} listedState={job.state} collapseLog />
              <p className="item_facts deploy_job_facts">
                <span className="badge">{deployProviderLabels[job.provider]}</span> <DeployChannel channel={job.site} />{' · '}
                {job.startedBy === null
                  ? rich(m.version_deploys_started_gone({ date: slot('date') }), { date })
                  : rich(m.version_deploys_started({ date: slot('date'), user: slot('user') }), { date, user: <bdi>{job.startedBy}</bdi> })}
              </p>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/**
 * After a reload: a deploy this tab started for the version and did not close (sessionStorage) reopens the
 * deploy to site dialog on its progress while one of its jobs is unfinished; a finished or unknown one is
 * forgotten.
 */
export function useResumeDeploy(project: Project, versionId: string, onStarted: () => void): void {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  useEffect(() => {
    const stored = readStoredDeploy(versionId);
    if (!stored || stored.projectId !== project.id) return;
    const controller = new AbortController();
    void (async () => {
      let unfinished: boolean;
      try {
        const states = await utils.client.jobs.state.query({ tokens: stored.jobs.map((job) => job.token) }, { signal: controller.signal });
        unfinished = stored.jobs.some((_, index) => {
          const state = states.find((item) => item.index === index);
          return state !== undefined && !isFinished(state);
        });
      } catch (error) {
        if (controller.signal.aborted) return;
        // not_found: the server forgot a job (a week after it finished), or the token is not one.
        if (isRefusal(error)) {
          forgetStoredDeploy(versionId);
          return;
        }
        // The server unreachable now: reopen anyway, the dialog keeps trying.
        unfinished = true;
      }
      if (controller.signal.aborted) return;
      if (!unfinished) {
        forgetStoredDeploy(versionId);
        return;
      }
      await openDeployToSiteDialog(dialogs, { project, versionId, resume: stored, onStarted });
    })();
    return () => controller.abort();
    // Once per version shown: the project's later refetches do not reopen a dialog the user closed.
  }, [versionId, project.id]);
}
