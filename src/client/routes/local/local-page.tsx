import { useId } from 'react';
import { local_installed_empty } from '../../../shared/i18n/paraglide/messages/local_installed_empty.js';
import { local_installed_heading } from '../../../shared/i18n/paraglide/messages/local_installed_heading.js';
import { local_title } from '../../../shared/i18n/paraglide/messages/local_title.js';
import { local_workspaces_empty } from '../../../shared/i18n/paraglide/messages/local_workspaces_empty.js';
import { local_workspaces_heading } from '../../../shared/i18n/paraglide/messages/local_workspaces_heading.js';
import { local_workspaces_intro } from '../../../shared/i18n/paraglide/messages/local_workspaces_intro.js';
import { homeCrumb, Page } from '../../components/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../../components/states.tsx';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import { useLocalApp, type LocalApp } from '../../lib/local-app/use-local-app.ts';
import { LocalAppStatus } from './local-app-status.tsx';
import { WorkdirRow } from './workdir-row.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { local_installed_empty, local_installed_heading, local_title, local_workspaces_empty, local_workspaces_heading, local_workspaces_intro };

/**
 * Spec §2 'local': the packages installed through the local app (launch, repair, uninstall, show
 * folder, the percent of a running transition) and its root folders (workspaces); when the app does not
 * answer, the warning with its downloads, how to start it and Retry.
 */
export default function LocalPage() {
  const local = useLocalApp({ probe: true });
  return (
    <Page title={m.local_title()} breadcrumb={[homeCrumb(), { label: m.local_title() }]} pageClass="page_local">
      <h1>{m.local_title()}</h1>
      <LocalAppStatus local={local} />
      {local.connected ? (
        <>
          <InstalledSection local={local} />
          <WorkspacesSection local={local} />
        </>
      ) : null}
    </Page>
  );
}

function InstalledSection({ local }: { local: LocalApp }) {
  const headingId = useId();
  const workdirs = local.workdirs;
  return (
    <section className="section local_installed" aria-labelledby={headingId}>
      <h2 id={headingId}>{m.local_installed_heading()}</h2>
      {workdirs.error ? (
        <ErrorState error={workdirs.error} onRetry={workdirs.refetch} />
      ) : !workdirs.data ? (
        <LoadingState />
      ) : workdirs.data.length === 0 ? (
        <EmptyState icon="packages">{m.local_installed_empty()}</EmptyState>
      ) : (
        <ul className="item_list local_workdirs" aria-labelledby={headingId}>
          {workdirs.data.map((workdir) => (
            <WorkdirRow key={workdir.id} workdir={workdir} progress={local.progressOf(workdir.id)} />
          ))}
        </ul>
      )}
    </section>
  );
}

function WorkspacesSection({ local }: { local: LocalApp }) {
  const headingId = useId();
  const workspaces = local.workspaces;
  return (
    <section className="section local_workspaces" aria-labelledby={headingId}>
      <h2 id={headingId}>{m.local_workspaces_heading()}</h2>
      <p className="section_intro">{rich(m.local_workspaces_intro({ command: slot('command') }), { command: <code dir="ltr">cartridge-helper workspace add …</code> })}</p>
      {workspaces.error ? (
        <ErrorState error={workspaces.error} onRetry={workspaces.refetch} />
      ) : !workspaces.data ? (
        <LoadingState />
      ) : workspaces.data.length === 0 ? (
        <EmptyState icon="files">{m.local_workspaces_empty()}</EmptyState>
      ) : (
        <ul className="item_list local_workspace_list" aria-labelledby={headingId}>
          {workspaces.data.map((workspace) => (
            <li key={workspace.id} className="item" data-workspace-id={workspace.id}>
              <bdi dir="ltr" className="local_path">
                {workspace.local_path}
              </bdi>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
