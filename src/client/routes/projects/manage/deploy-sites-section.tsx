import { manage_deploy_add } from '../../../../shared/i18n/paraglide/messages/manage_deploy_add.js';
import { manage_deploy_credential } from '../../../../shared/i18n/paraglide/messages/manage_deploy_credential.js';
import { manage_deploy_delete } from '../../../../shared/i18n/paraglide/messages/manage_deploy_delete.js';
import { manage_deploy_delete_text } from '../../../../shared/i18n/paraglide/messages/manage_deploy_delete_text.js';
import { manage_deploy_delete_title } from '../../../../shared/i18n/paraglide/messages/manage_deploy_delete_title.js';
import { manage_deploy_empty } from '../../../../shared/i18n/paraglide/messages/manage_deploy_empty.js';
import { manage_deploy_heading } from '../../../../shared/i18n/paraglide/messages/manage_deploy_heading.js';
import { manage_deploy_intro } from '../../../../shared/i18n/paraglide/messages/manage_deploy_intro.js';
import { EmptyState, ErrorState, LoadingState } from '../../../components/states.tsx';
import { AddDeploySiteDialog } from '../../../dialogs/add-deploy-site-dialog.tsx';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { deployProviderLabels } from '../../../lib/deploy-providers.ts';
import { rich, slot } from '../../../lib/i18n/rich.tsx';
import { trpc } from '../../../lib/trpc.ts';
import type { DeploySite } from '../../../../shared/schemas/deploy.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import { can } from '../project-frame.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { manage_deploy_add, manage_deploy_credential, manage_deploy_delete, manage_deploy_delete_text, manage_deploy_delete_title, manage_deploy_empty, manage_deploy_heading, manage_deploy_intro };

function SiteAddress({ site }: { site: DeploySite }) {
  return (
    <bdi className="deploy_site_address" dir="ltr">
      {site.site}
    </bdi>
  );
}

/**
 * Spec §2 'manage: deploy sites': every member sees where versions go (provider, site, credential); adding
 * (the add deploy site dialog) and deleting follow userPossibleActions (createDeploySite, deleteDeploySite).
 */
export function DeploySitesSection({ project }: { project: Project }) {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const sites = trpc.deploys.sites.list.useQuery({ project: project.id });
  const canAdd = can(project, 'createDeploySite');
  const canDelete = can(project, 'deleteDeploySite');

  const startAdd = async () => {
    const created = await dialogs.open<DeploySite | null>((close) => <AddDeploySiteDialog projectId={project.id} onClose={close} />);
    if (created) await Promise.all([utils.deploys.sites.list.invalidate({ project: project.id }), utils.deploys.credentials.list.invalidate()]);
  };

  return (
    <section className="section" aria-labelledby="manage-deploy">
      <h2 id="manage-deploy">{m.manage_deploy_heading()}</h2>
      <p className="section_intro">{m.manage_deploy_intro()}</p>
      {sites.isPending ? <LoadingState /> : null}
      {sites.error ? <ErrorState error={sites.error} onRetry={() => void sites.refetch()} /> : null}
      {sites.data && sites.data.length === 0 ? <EmptyState icon="sites">{m.manage_deploy_empty()}</EmptyState> : null}
      {sites.data && sites.data.length > 0 ? (
        <ul className="item_list" aria-labelledby="manage-deploy">
          {sites.data.map((site) => (
            <DeploySiteRow key={site.id} project={project} site={site} canDelete={canDelete} />
          ))}
        </ul>
      ) : null}
      {canAdd ? (
        <div className="actions">
          <button type="button" className="button button_primary" onClick={() => void startAdd()}>
            {m.manage_deploy_add()}
          </button>
        </div>
      ) : null}
    </section>
  );
}

function DeploySiteRow({ project, site, canDelete }: { project: Project; site: DeploySite; canDelete: boolean }) {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const remove = trpc.deploys.sites.delete.useMutation();

  const startDelete = async () => {
    const confirmed = await dialogs.confirm({
      title: m.manage_deploy_delete_title(),
      message: rich(m.manage_deploy_delete_text({ site: slot('site') }), { site: <SiteAddress site={site} /> }),
      confirmLabel: m.manage_deploy_delete(),
      danger: true,
      defaultFocus: 'cancel',
    });
    if (!confirmed) return;
    await dialogs.attempt(() => remove.mutateAsync({ project: project.id, site: site.id }));
    await Promise.all([utils.deploys.sites.list.invalidate({ project: project.id }), utils.deploys.credentials.list.invalidate()]);
  };

  return (
    <li className="item deploy_site_item" data-deploy-site-id={site.id}>
      <div className="item_main">
        <span className="item_title">
          <SiteAddress site={site} />
        </span>
        <span className="item_facts">
          <span className="badge">{deployProviderLabels[site.provider]}</span>{' '}
          {rich(m.manage_deploy_credential({ title: slot('title'), owner: slot('owner') }), { title: <bdi>{site.credentialTitle}</bdi>, owner: <bdi>{site.credentialOwnerTitle}</bdi> })}
        </span>
      </div>
      {canDelete ? (
        <button type="button" className="button button_quiet button_danger_text" onClick={() => void startDelete()} aria-label={`${m.manage_deploy_delete()}: ${site.site}`}>
          {m.manage_deploy_delete()}
        </button>
      ) : null}
    </li>
  );
}
