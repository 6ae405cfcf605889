import { me_deploy_add } from '../../../shared/i18n/paraglide/messages/me_deploy_add.js';
import { me_deploy_added } from '../../../shared/i18n/paraglide/messages/me_deploy_added.js';
import { me_deploy_delete } from '../../../shared/i18n/paraglide/messages/me_deploy_delete.js';
import { me_deploy_delete_sites } from '../../../shared/i18n/paraglide/messages/me_deploy_delete_sites.js';
import { me_deploy_delete_text } from '../../../shared/i18n/paraglide/messages/me_deploy_delete_text.js';
import { me_deploy_delete_title } from '../../../shared/i18n/paraglide/messages/me_deploy_delete_title.js';
import { me_deploy_empty } from '../../../shared/i18n/paraglide/messages/me_deploy_empty.js';
import { me_deploy_heading } from '../../../shared/i18n/paraglide/messages/me_deploy_heading.js';
import { me_deploy_intro } from '../../../shared/i18n/paraglide/messages/me_deploy_intro.js';
import { me_deploy_no_sites } from '../../../shared/i18n/paraglide/messages/me_deploy_no_sites.js';
import { me_deploy_site_in_project } from '../../../shared/i18n/paraglide/messages/me_deploy_site_in_project.js';
import { me_deploy_sites } from '../../../shared/i18n/paraglide/messages/me_deploy_sites.js';
import { EmptyState, ErrorState, LoadingState } from '../../components/states.tsx';
import { AddDeployCredentialDialog } from '../../dialogs/add-deploy-credential-dialog.tsx';
import { useDialogs } from '../../dialogs/dialog-provider.tsx';
import { deployProviderLabels } from '../../lib/deploy-providers.ts';
import { useLanguage } from '../../lib/i18n/index.ts';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import { trpc } from '../../lib/trpc.ts';
import { formatDate } from '../../../shared/format/date.ts';
import type { DeployCredential } from '../../../shared/schemas/deploy.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  me_deploy_add,
  me_deploy_added,
  me_deploy_delete,
  me_deploy_delete_sites,
  me_deploy_delete_text,
  me_deploy_delete_title,
  me_deploy_empty,
  me_deploy_heading,
  me_deploy_intro,
  me_deploy_no_sites,
  me_deploy_site_in_project,
  me_deploy_sites,
};

type CredentialSite = DeployCredential['sites'][number];

/** 'developer/game in project X', the site and the title isolated (they are typed text, maybe of another direction). */
function SiteInProject({ site }: { site: CredentialSite }) {
  return (
    <>
      {rich(m.me_deploy_site_in_project({ site: slot('site'), project: slot('project') }), {
        site: (
          <bdi className="deploy_site_address" dir="ltr">
            {site.site}
          </bdi>
        ),
        project: <bdi>{site.projectTitle}</bdi>,
      })}
    </>
  );
}

/**
 * Spec §2 'me: deploy credentials': the caller's keys for storefronts (title, provider, added, the deploy
 * sites using each), add (the add deploy credential dialog) and delete (a danger confirmation naming the
 * deploy sites that go with it, spec §6). The key itself is never in any reply.
 */
export function DeployCredentialsSection() {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const credentials = trpc.deploys.credentials.list.useQuery();

  const startAdd = async () => {
    const nextNumber = (credentials.data?.length ?? 0) + 1;
    const created = await dialogs.open<DeployCredential | null>((close) => <AddDeployCredentialDialog nextNumber={nextNumber} onClose={close} />);
    if (created) await utils.deploys.credentials.list.invalidate();
  };

  return (
    <section className="section" aria-labelledby="me-deploy">
      <h2 id="me-deploy">{m.me_deploy_heading()}</h2>
      <p className="section_intro">{m.me_deploy_intro()}</p>
      {credentials.isPending ? <LoadingState /> : null}
      {credentials.error ? <ErrorState error={credentials.error} onRetry={() => void credentials.refetch()} /> : null}
      {credentials.data && credentials.data.length === 0 ? <EmptyState icon="keys">{m.me_deploy_empty()}</EmptyState> : null}
      {credentials.data && credentials.data.length > 0 ? (
        <ul className="item_list" aria-labelledby="me-deploy">
          {credentials.data.map((credential) => (
            <DeployCredentialRow key={credential.id} credential={credential} />
          ))}
        </ul>
      ) : null}
      <div className="actions">
        <button type="button" className="button button_primary" onClick={() => void startAdd()}>
          {m.me_deploy_add()}
        </button>
      </div>
    </section>
  );
}

function DeployCredentialRow({ credential }: { credential: DeployCredential }) {
  const dialogs = useDialogs();
  const { language } = useLanguage();
  const utils = trpc.useUtils();
  const remove = trpc.deploys.credentials.delete.useMutation();

  const startDelete = async () => {
    const confirmed = await dialogs.confirm({
      title: m.me_deploy_delete_title(),
      message: (
        <>
          <p>{rich(m.me_deploy_delete_text({ title: slot('title') }), { title: <bdi>{credential.title}</bdi> })}</p>
          {credential.sites.length > 0 ? (
            <>
              <p>{m.me_deploy_delete_sites()}</p>
              <ul className="deploy_delete_sites">
                {credential.sites.map((site) => (
                  <li key={site.id}>
                    <SiteInProject site={site} />
                  </li>
                ))}
              </ul>
            </>
          ) : (
            <p>{m.me_deploy_no_sites()}</p>
          )}
        </>
      ),
      confirmLabel: m.me_deploy_delete(),
      danger: true,
      defaultFocus: 'cancel',
    });
    if (!confirmed) return;
    await dialogs.attempt(() => remove.mutateAsync({ credential: credential.id }));
    await Promise.all([utils.deploys.credentials.list.invalidate(), utils.deploys.sites.list.invalidate()]);
  };

  return (
    <li className="item deploy_credential_item" data-deploy-credential-id={credential.id}>
      <div className="item_main">
        <span className="item_title">
          <bdi>{credential.title}</bdi>
        </span>
        <span className="item_facts">
          <span className="badge">{deployProviderLabels[credential.provider]}</span> {m.me_deploy_added({ date: formatDate(credential.created, language) })}
        </span>
        {credential.sites.length > 0 ? (
          <div className="deploy_credential_sites">
            <span>{m.me_deploy_sites()}</span>
            <ul>
              {credential.sites.map((site) => (
                <li key={site.id}>
                  <SiteInProject site={site} />
                </li>
              ))}
            </ul>
          </div>
        ) : (
          <span className="item_facts">{m.me_deploy_no_sites()}</span>
        )}
      </div>
      <button type="button" className="button button_quiet button_danger_text" onClick={() => void startDelete()} aria-label={`${m.me_deploy_delete()}: ${credential.title}`}>
        {m.me_deploy_delete()}
      </button>
    </li>
  );
}
