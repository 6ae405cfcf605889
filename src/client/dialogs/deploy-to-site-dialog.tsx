import { useEffect, useId, useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'wouter';
import { deploy_dialog_channel } from '../../shared/i18n/paraglide/messages/deploy_dialog_channel.js';
import { deploy_dialog_channel_invalid } from '../../shared/i18n/paraglide/messages/deploy_dialog_channel_invalid.js';
import { deploy_dialog_close } from '../../shared/i18n/paraglide/messages/deploy_dialog_close.js';
import { deploy_dialog_deploy } from '../../shared/i18n/paraglide/messages/deploy_dialog_deploy.js';
import { deploy_dialog_manage_link } from '../../shared/i18n/paraglide/messages/deploy_dialog_manage_link.js';
import { deploy_dialog_no_sites } from '../../shared/i18n/paraglide/messages/deploy_dialog_no_sites.js';
import { deploy_dialog_no_sites_ask } from '../../shared/i18n/paraglide/messages/deploy_dialog_no_sites_ask.js';
import { deploy_dialog_packages } from '../../shared/i18n/paraglide/messages/deploy_dialog_packages.js';
import { deploy_dialog_site } from '../../shared/i18n/paraglide/messages/deploy_dialog_site.js';
import { deploy_dialog_site_choose } from '../../shared/i18n/paraglide/messages/deploy_dialog_site_choose.js';
import { deploy_dialog_title } from '../../shared/i18n/paraglide/messages/deploy_dialog_title.js';
import { deploy_no_packages } from '../../shared/i18n/paraglide/messages/deploy_no_packages.js';
import { deploy_progress_intro } from '../../shared/i18n/paraglide/messages/deploy_progress_intro.js';
import { dialog_cancel } from '../../shared/i18n/paraglide/messages/dialog_cancel.js';
import { DeployChannel, DeployJobStatus } from '../components/deploy-job.tsx';
import { FormField } from '../components/form-field.tsx';
import { ErrorState, LoadingState } from '../components/states.tsx';
import { TagList } from '../components/tag-list.tsx';
import { deployProviderLabels } from '../lib/deploy-providers.ts';
import { forgetStoredDeploy, saveStoredDeploy, storedDeployOf, useWatchedJobs, type StoredDeploy } from '../lib/deploy-jobs.ts';
import { rich, slot } from '../lib/i18n/rich.tsx';
import { trpc } from '../lib/trpc.ts';
import { defaultItchChannel, deployChannelSchema, findSharedChannel } from '../../shared/schemas/deploy.ts';
import type { Project } from '../../shared/schemas/projects.ts';
import { deployRefusalText, problemText, sharedChannelText } from './deploy-refusal.tsx';
import { Modal } from './modal.tsx';
import type { Dialogs } from './dialog-api.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  deploy_dialog_channel,
  deploy_dialog_channel_invalid,
  deploy_dialog_close,
  deploy_dialog_deploy,
  deploy_dialog_manage_link,
  deploy_dialog_no_sites,
  deploy_dialog_no_sites_ask,
  deploy_dialog_packages,
  deploy_dialog_site,
  deploy_dialog_site_choose,
  deploy_dialog_title,
  deploy_no_packages,
  deploy_progress_intro,
  dialog_cancel,
};

/** Version ids whose dialog is on screen: the Deploy button and the reload check never open a second one. */
const openDialogs = new Set<string>();

export type DeployToSiteDialogProps = {
  project: Project;
  versionId: string;
  /** A deploy this tab started and did not close (kept in sessionStorage): the dialog opens on its progress. */
  resume?: StoredDeploy;
  /** After the server started the jobs (the page refreshes its list of deploys). */
  onStarted?: (deploy: StoredDeploy) => void;
  onClose: () => void;
};

/**
 * Opens the deploy to site dialog for the version unless it is already open; resolves when it closes.
 */
export async function openDeployToSiteDialog(dialogs: Dialogs, props: Omit<DeployToSiteDialogProps, 'onClose'>): Promise<void> {
  if (openDialogs.has(props.versionId)) return;
  await dialogs.open<void>((close) => <DeployToSiteDialog {...props} onClose={() => close()} />);
}

/**
 * Spec §2 'deploy to site': a deploy site, then per package of the version whether it goes and to which
 * channel (itch.io: the §5 default from its tags). Deploy stays disabled with no site chosen, while the
 * site cannot take deploys on this server (said before the user starts), with no package included, with
 * a channel that is not valid or given to two packages (the §5 sentences). Deploy starts one job per
 * package and turns the dialog into their live progress, which a reload reopens (sessionStorage) until the
 * user closes the dialog. The jobs go on on the server after it closes.
 */
function DeployToSiteDialog({ project, versionId, resume, onStarted, onClose }: DeployToSiteDialogProps) {
  const [started, setStarted] = useState<StoredDeploy | undefined>(resume);
  useEffect(() => {
    openDialogs.add(versionId);
    return () => {
      openDialogs.delete(versionId);
    };
  }, [versionId]);
  const close = () => {
    forgetStoredDeploy(versionId);
    onClose();
  };
  return (
    <Modal title={m.deploy_dialog_title()} onCancel={close} className="deploy_dialog">
      {started ? (
        <DeployProgress deploy={started} onClose={close} />
      ) : (
        <DeployForm
          project={project}
          versionId={versionId}
          onCancel={close}
          onStarted={(deploy) => {
            saveStoredDeploy(deploy);
            setStarted(deploy);
            onStarted?.(deploy);
          }}
        />
      )}
    </Modal>
  );
}

type PackageChoice = { include: boolean; channel: string };

function DeployForm({ project, versionId, onCancel, onStarted }: { project: Project; versionId: string; onCancel: () => void; onStarted: (deploy: StoredDeploy) => void }) {
  // The manage page's cache: a site added or deleted there is here at once (each site's deployProblem says what the server lacks).
  const sites = trpc.deploys.sites.list.useQuery({ project: project.id });
  const start = trpc.deploys.version.start.useMutation();
  const packages = trpc.packages.ofVersion.useQuery({ project: project.id, version: versionId });
  const ids = { problem: useId(), site: useId() };
  const [siteId, setSiteId] = useState('');
  const [choices, setChoices] = useState<Record<string, PackageChoice>>({});
  const [pending, setPending] = useState(false);
  const [refusal, setRefusal] = useState<ReactNode>();

  const siteList = sites.data ?? [];
  const site = siteList.find((item) => item.id === siteId);
  const siteProblem = site ? problemText(site.deployProblem, site.deployProblemMessage) : undefined;
  const rows = (packages.data ?? []).map((pkg) => {
    const choice = choices[pkg.id] ?? { include: true, channel: defaultItchChannel(pkg.tags) };
    return { pkg, ...choice, valid: deployChannelSchema.safeParse(choice.channel).success };
  });
  const included = rows.filter((row) => row.include);
  const shared = findSharedChannel(included.filter((row) => row.valid));
  // The form's own §5 refusals, shown as soon as they hold (the server says the same words).
  const formProblem = packages.data ? (included.length === 0 ? m.deploy_no_packages() : shared ? sharedChannelText(shared.count, shared.channel) : undefined) : undefined;
  const canDeploy = site !== undefined && siteProblem === undefined && packages.data !== undefined && included.length > 0 && included.every((row) => row.valid) && !shared;

  const setChoice = (id: string, change: Partial<PackageChoice>, current: PackageChoice) => {
    setRefusal(undefined);
    setChoices((all) => ({ ...all, [id]: { ...current, ...change } }));
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!canDeploy || pending) return;
    setPending(true);
    setRefusal(undefined);
    try {
      const reply = await start.mutateAsync({
        project: project.id,
        version: versionId,
        site: site.id,
        packages: included.map((row) => ({ package: row.pkg.id, channel: row.channel })),
      });
      onStarted(storedDeployOf(project.id, versionId, reply.jobs));
    } catch (failure) {
      setRefusal(deployRefusalText(failure));
      setPending(false);
    }
  };

  if (sites.error || packages.error) {
    const error = sites.error ?? packages.error;
    return (
      <div className="dialog_form">
        <ErrorState error={error} onRetry={() => void (sites.error ? sites.refetch() : packages.refetch())} />
        <div className="dialog_actions">
          <button type="button" className="button" onClick={onCancel}>
            {m.dialog_cancel()}
          </button>
        </div>
      </div>
    );
  }
  if (!sites.data || !packages.data) return <LoadingState />;
  if (siteList.length === 0) {
    return (
      <div className="dialog_form">
        <p className="notice" data-testid="deploy-no-sites">
          {project.userPossibleActions.includes('createDeploySite')
            ? rich(m.deploy_dialog_no_sites({ link: slot('link') }), {
                link: (
                  <Link href={`/projects/${encodeURIComponent(project.id)}/manage`} onClick={onCancel}>
                    {m.deploy_dialog_manage_link()}
                  </Link>
                ),
              })
            : m.deploy_dialog_no_sites_ask()}
        </p>
        <div className="dialog_actions">
          <button type="button" className="button" data-autofocus onClick={onCancel}>
            {m.deploy_dialog_close()}
          </button>
        </div>
      </div>
    );
  }

  const problemIds = [siteProblem ? `${ids.site}-site-problem` : '', formProblem ? ids.problem : ''].filter(Boolean).join(' ') || undefined;
  return (
    <form className="dialog_form" onSubmit={(event) => void submit(event)} noValidate>
      <FormField label={m.deploy_dialog_site()} id={ids.site}>
        {(control) => (
          <select {...control} name="site" className="select" data-autofocus value={siteId} onChange={(event) => {
            setRefusal(undefined);
            setSiteId(event.currentTarget.value);
          }}>
            <option value="">{m.deploy_dialog_site_choose()}</option>
            {siteList.map((item) => (
              <option key={item.id} value={item.id}>
                {item.site} ({deployProviderLabels[item.provider]})
              </option>
            ))}
          </select>
        )}
      </FormField>
      {siteProblem ? (
        <p id={`${ids.site}-site-problem`} className="notice deploy_site_problem" role="alert" data-problem={site?.deployProblem ?? undefined}>
          {siteProblem}
        </p>
      ) : null}
      <fieldset className="field deploy_packages">
        <legend>{m.deploy_dialog_packages()}</legend>
        {rows.length === 0 ? null : (
          <ul className="deploy_package_list">
            {rows.map((row) => (
              <li key={row.pkg.id} className="deploy_package" data-package-id={row.pkg.id}>
                <label className="choice deploy_package_include">
                  <input type="checkbox" name="include" value={row.pkg.id} checked={row.include} onChange={(event) => setChoice(row.pkg.id, { include: event.currentTarget.checked }, row)} />
                  <bdi className="deploy_package_title">{row.pkg.title}</bdi>
                </label>
                <TagList tags={row.pkg.tags} />
                <FormField
                  label={m.deploy_dialog_channel()}
                  className="deploy_package_channel"
                  error={row.include && !row.valid ? m.deploy_dialog_channel_invalid() : undefined}
                  invalid={row.include && row.valid && shared?.channel === row.channel}
                  describedBy={row.include && row.valid && shared?.channel === row.channel ? ids.problem : undefined}
                >
                  {(control) => (
                    <input
                      {...control}
                      name="channel"
                      className="input"
                      dir="ltr"
                      autoComplete="off"
                      spellCheck={false}
                      maxLength={64}
                      disabled={!row.include}
                      value={row.channel}
                      onChange={(event) => setChoice(row.pkg.id, { channel: event.currentTarget.value }, row)}
                    />
                  )}
                </FormField>
              </li>
            ))}
          </ul>
        )}
      </fieldset>
      {formProblem ? (
        <p id={ids.problem} className="form_problem deploy_form_problem" aria-live="polite">
          {formProblem}
        </p>
      ) : null}
      {refusal ? (
        <p className="form_problem deploy_refusal" role="alert">
          {refusal}
        </p>
      ) : null}
      <div className="dialog_actions">
        <button type="button" className="button" onClick={onCancel}>
          {m.dialog_cancel()}
        </button>
        <button type="submit" className="button button_primary" disabled={!canDeploy} aria-disabled={pending ? true : undefined} aria-describedby={problemIds}>
          {m.deploy_dialog_deploy()}
        </button>
      </div>
    </form>
  );
}

/** The started jobs, one row each, followed live (GET /jobs events, POST /jobs meanwhile) until they finish. */
function DeployProgress({ deploy, onClose }: { deploy: StoredDeploy; onClose: () => void }) {
  const watched = useWatchedJobs(deploy.jobs.map((job) => job.token));
  return (
    <div className="dialog_form deploy_progress">
      <p className="section_intro">{rich(m.deploy_progress_intro({ site: slot('site') }), { site: <DeployChannel channel={deploy.site} /> })}</p>
      <ul className="deploy_job_list" data-testid="deploy-progress">
        {deploy.jobs.map((job, index) => (
          <li key={job.token} className="deploy_job_item" data-job={job.job}>
            <DeployJobStatus packageTitle={job.packageTitle} channel={job.channel} watched={watched.jobs[index]} />
          </li>
        ))}
      </ul>
      {watched.error ? <ErrorState error={watched.error} /> : null}
      <div className="dialog_actions">
        <button type="button" className="button button_primary" data-autofocus onClick={onClose}>
          {m.deploy_dialog_close()}
        </button>
      </div>
    </div>
  );
}
