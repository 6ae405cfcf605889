import { deploy_job_build } from '../../shared/i18n/paraglide/messages/deploy_job_build.js';
import { deploy_job_channel } from '../../shared/i18n/paraglide/messages/deploy_job_channel.js';
import { deploy_job_failed } from '../../shared/i18n/paraglide/messages/deploy_job_failed.js';
import { deploy_job_failed_unknown } from '../../shared/i18n/paraglide/messages/deploy_job_failed_unknown.js';
import { deploy_job_log } from '../../shared/i18n/paraglide/messages/deploy_job_log.js';
import { deploy_job_output } from '../../shared/i18n/paraglide/messages/deploy_job_output.js';
import { deploy_job_progress } from '../../shared/i18n/paraglide/messages/deploy_job_progress.js';
import { deploy_state_downloading } from '../../shared/i18n/paraglide/messages/deploy_state_downloading.js';
import { deploy_state_errored } from '../../shared/i18n/paraglide/messages/deploy_state_errored.js';
import { deploy_state_queued } from '../../shared/i18n/paraglide/messages/deploy_state_queued.js';
import { deploy_state_succeeded } from '../../shared/i18n/paraglide/messages/deploy_state_succeeded.js';
import { deploy_state_unpacking } from '../../shared/i18n/paraglide/messages/deploy_state_unpacking.js';
import { deploy_state_uploading } from '../../shared/i18n/paraglide/messages/deploy_state_uploading.js';
import { deployOutputOf, watchedState } from '../lib/deploy-jobs.ts';
import { JobLog } from './job-log.tsx';
import { rich, slot } from '../lib/i18n/rich.tsx';
import type { WatchedJob } from '../../shared/api/jobs.ts';
import type { DeployState } from '../../shared/schemas/deploy.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  deploy_job_build,
  deploy_job_channel,
  deploy_job_failed,
  deploy_job_failed_unknown,
  deploy_job_log,
  deploy_job_output,
  deploy_job_progress,
  deploy_state_downloading,
  deploy_state_errored,
  deploy_state_queued,
  deploy_state_succeeded,
  deploy_state_unpacking,
  deploy_state_uploading,
};

/** Listed one by one (not looked up by name) so the bundler keeps only these messages. */
const stateLabels: Record<DeployState, () => string> = {
  queued: m.deploy_state_queued,
  downloading: m.deploy_state_downloading,
  unpacking: m.deploy_state_unpacking,
  uploading: m.deploy_state_uploading,
  succeeded: m.deploy_state_succeeded,
  errored: m.deploy_state_errored,
};

function deployStateLabel(state: DeployState): string {
  return stateLabels[state]();
}

/** A deploy channel (or target) as typed: Latin, left to right and in the code font inside any sentence. */
export function DeployChannel({ channel }: { channel: string }) {
  return (
    <bdi className="deploy_channel" dir="ltr">
      {channel}
    </bdi>
  );
}

export type DeployJobProps = {
  packageTitle: string;
  channel: string;
  /** The job's state as followed live (watchJobs), undefined before the first answer. */
  watched: WatchedJob | undefined;
  /** The state shown before the first answer (the list's). */
  listedState?: DeployState;
  /** The output log inside a closed <details> (lists), or always shown (the dialog). */
  collapseLog?: boolean;
};

/**
 * One deploy job (spec §4 states): package and channel, the localized state, a progress bar while it
 * runs, the itch.io build once it succeeded or the reason once it failed, and the output log (scrollable,
 * monospace, the newest line kept in view).
 */
export function DeployJobStatus({ packageTitle, channel, watched, listedState, collapseLog }: DeployJobProps) {
  const state = watchedState(watched, listedState);
  const finished = state === 'succeeded' || state === 'errored';
  const output = deployOutputOf(watched);
  const log = watched?.log ?? [];
  const progress = watched?.progress ?? null;
  const logView = log.length > 0 ? <JobLog lines={log} label={m.deploy_job_log({ title: packageTitle })} className="deploy_log" /> : null;
  return (
    <div className="deploy_job" data-state={state}>
      <div className="deploy_job_head">
        <bdi className="deploy_job_title">{packageTitle}</bdi>
        <span className="deploy_job_channel">{rich(m.deploy_job_channel({ channel: slot('channel') }), { channel: <DeployChannel channel={channel} /> })}</span>
        <span className="badge deploy_job_state" data-state={state} aria-live="polite">
          {deployStateLabel(state)}
        </span>
      </div>
      {finished ? null : (
        <div className="deploy_job_progress">
          {/* No value while nothing was measured yet (queued, or a stage without a fraction): an indeterminate bar. */}
          {progress === null ? (
            <progress max={1} aria-label={m.deploy_job_progress({ title: packageTitle })} />
          ) : (
            <>
              <progress max={1} value={progress} aria-label={m.deploy_job_progress({ title: packageTitle })} aria-valuetext={`${Math.round(progress * 100)}%`} />
              <span className="deploy_job_percent">{Math.round(progress * 100)}%</span>
            </>
          )}
        </div>
      )}
      {output && output.buildId !== null ? (
        <p className="deploy_job_build">{rich(m.deploy_job_build({ build: slot('build') }), { build: <bdi className="deploy_build_id">{output.buildId}</bdi> })}</p>
      ) : null}
      {state === 'errored' ? (
        <p className="deploy_job_error">{watched?.error ? m.deploy_job_failed({ reason: watched.error }) : m.deploy_job_failed_unknown()}</p>
      ) : null}
      {logView && collapseLog ? (
        <details className="deploy_job_details">
          <summary>{m.deploy_job_output()}</summary>
          {logView}
        </details>
      ) : (
        logView
      )}
    </div>
  );
}
