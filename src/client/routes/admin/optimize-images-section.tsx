import { useState } from 'react';
import { admin_images_done } from '../../../shared/i18n/paraglide/messages/admin_images_done.js';
import { admin_images_failed } from '../../../shared/i18n/paraglide/messages/admin_images_failed.js';
import { admin_images_heading } from '../../../shared/i18n/paraglide/messages/admin_images_heading.js';
import { admin_images_intro } from '../../../shared/i18n/paraglide/messages/admin_images_intro.js';
import { admin_images_log } from '../../../shared/i18n/paraglide/messages/admin_images_log.js';
import { admin_images_optimize } from '../../../shared/i18n/paraglide/messages/admin_images_optimize.js';
import { admin_images_progress } from '../../../shared/i18n/paraglide/messages/admin_images_progress.js';
import { admin_job_errored } from '../../../shared/i18n/paraglide/messages/admin_job_errored.js';
import { admin_job_queued } from '../../../shared/i18n/paraglide/messages/admin_job_queued.js';
import { admin_job_running } from '../../../shared/i18n/paraglide/messages/admin_job_running.js';
import { admin_job_succeeded } from '../../../shared/i18n/paraglide/messages/admin_job_succeeded.js';
import { dialog_error_message } from '../../../shared/i18n/paraglide/messages/dialog_error_message.js';
import { JobLog } from '../../components/job-log.tsx';
import { errorText, toDisplayError } from '../../lib/errors.ts';
import { useLanguage } from '../../lib/i18n/index.ts';
import { trpc } from '../../lib/trpc.ts';
import { isFinished, useWatchedJobs } from '../../lib/watched-jobs.ts';
import type { WatchedJob } from '../../../shared/api/jobs.ts';
import { optimizeContentImagesOutputSchema } from '../../../shared/schemas/content-images.ts';
import type { JobStatusName } from '../../../shared/schemas/jobs.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  admin_images_done,
  admin_images_failed,
  admin_images_heading,
  admin_images_intro,
  admin_images_log,
  admin_images_optimize,
  admin_images_progress,
  admin_job_errored,
  admin_job_queued,
  admin_job_running,
  admin_job_succeeded,
  dialog_error_message,
};

/** Listed one by one (not looked up by name) so the bundler keeps only these messages. */
const statusLabels: Record<JobStatusName, () => string> = {
  queued: m.admin_job_queued,
  running: m.admin_job_running,
  succeeded: m.admin_job_succeeded,
  errored: m.admin_job_errored,
};

/** The started job's token, kept for the tab so a reload shows the run still going (or how it ended). */
const storageKey = 'optimize_images_job';

function storedToken(): string | null {
  try {
    return sessionStorage.getItem(storageKey);
  } catch {
    return null;
  }
}

function storeToken(token: string): void {
  try {
    sessionStorage.setItem(storageKey, token);
  } catch {
    // storage blocked: the page follows the job until it goes away
  }
}

/**
 * Spec §2's 'Optimize images' (POST /admin/maintenance/optimize-content-images): a job re-encoding every
 * content image's sizes, followed live (state, progress, log) and then its count of images and failures.
 */
export function OptimizeImagesSection() {
  const optimize = trpc.admin.optimizeContentImages.useMutation();
  const [token, setToken] = useState<string | null>(storedToken);
  const [starting, setStarting] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const watched = useWatchedJobs(token ? [token] : []);
  const job = watched.jobs[0];
  const running = token !== null && !isFinished(job) && !watched.error;

  const start = async () => {
    setStarting(true);
    setProblem(undefined);
    try {
      const started = await optimize.mutateAsync();
      storeToken(started.token);
      setToken(started.token);
    } catch (error) {
      setProblem(m.dialog_error_message({ text: errorText(toDisplayError(error)) }));
    } finally {
      setStarting(false);
    }
  };

  return (
    <section className="section admin_images" aria-labelledby="admin-images">
      <h2 id="admin-images">{m.admin_images_heading()}</h2>
      <p className="section_intro">{m.admin_images_intro()}</p>
      <button type="button" className="button button_primary" onClick={() => void start()} disabled={starting || running}>
        {m.admin_images_optimize()}
      </button>
      {problem ? (
        <p className="form_problem" role="alert">
          {problem}
        </p>
      ) : null}
      {token ? <OptimizeJob job={job} error={watched.error} /> : null}
    </section>
  );
}

function OptimizeJob({ job, error }: { job: WatchedJob | undefined; error: unknown }) {
  const { language } = useLanguage();
  const status: JobStatusName = job?.status ?? 'queued';
  const progress = job?.progress ?? null;
  const output = job?.status === 'succeeded' ? optimizeContentImagesOutputSchema.safeParse(job.output) : undefined;
  return (
    <div className="admin_job" data-status={status}>
      <p className="admin_job_head">
        <span className="badge admin_job_state" data-status={status} aria-live="polite">
          {statusLabels[status]()}
        </span>
      </p>
      {isFinished(job) ? null : progress === null ? (
        <progress max={1} aria-label={m.admin_images_progress()} />
      ) : (
        <p className="admin_job_progress">
          <progress max={1} value={progress} aria-label={m.admin_images_progress()} aria-valuetext={`${Math.round(progress * 100)}%`} />
          <span className="admin_job_percent">{Math.round(progress * 100)}%</span>
        </p>
      )}
      {output?.success ? (
        <p className="admin_job_output" role="status">
          {m.admin_images_done({ images: output.data.images.toLocaleString(language), failed: output.data.failed.toLocaleString(language) })}
        </p>
      ) : null}
      {job?.status === 'errored' ? (
        <p className="admin_job_error" role="alert">
          {m.admin_images_failed({ reason: job.error ?? '' })}
        </p>
      ) : null}
      {error && !job ? (
        <p className="admin_job_error" role="alert">
          {m.dialog_error_message({ text: errorText(toDisplayError(error)) })}
        </p>
      ) : null}
      {job && job.log.length > 0 ? <JobLog lines={job.log} label={m.admin_images_log()} /> : null}
    </div>
  );
}
