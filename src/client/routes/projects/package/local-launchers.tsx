import { useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { Link } from 'wouter';
import { local_checking } from '../../../../shared/i18n/paraglide/messages/local_checking.js';
import { package_page_install } from '../../../../shared/i18n/paraglide/messages/package_page_install.js';
import { package_page_launch } from '../../../../shared/i18n/paraglide/messages/package_page_launch.js';
import { package_page_local_busy } from '../../../../shared/i18n/paraglide/messages/package_page_local_busy.js';
import { package_page_local_check } from '../../../../shared/i18n/paraglide/messages/package_page_local_check.js';
import { package_page_local_not_checked } from '../../../../shared/i18n/paraglide/messages/package_page_local_not_checked.js';
import { package_page_local_not_installed } from '../../../../shared/i18n/paraglide/messages/package_page_local_not_installed.js';
import { package_page_local_not_trusted } from '../../../../shared/i18n/paraglide/messages/package_page_local_not_trusted.js';
import { package_page_local_no_update } from '../../../../shared/i18n/paraglide/messages/package_page_local_no_update.js';
import { package_page_local_outdated } from '../../../../shared/i18n/paraglide/messages/package_page_local_outdated.js';
import { package_page_local_setup } from '../../../../shared/i18n/paraglide/messages/package_page_local_setup.js';
import { package_page_local_unavailable } from '../../../../shared/i18n/paraglide/messages/package_page_local_unavailable.js';
import { package_page_update } from '../../../../shared/i18n/paraglide/messages/package_page_update.js';
import { state_loading } from '../../../../shared/i18n/paraglide/messages/state_loading.js';
import { useDialogs } from '../../../dialogs/dialog-provider.tsx';
import { InstallPackageDialog } from '../../../dialogs/install-package-dialog.tsx';
import { useLanguage } from '../../../lib/i18n/index.ts';
import { useWorkdirActions } from '../../../lib/local-app/actions.tsx';
import { installedWorkdir, transitionTo, updatableWorkdir, type InstallablePackage } from '../../../lib/local-app/install.ts';
import { progressPercent, transitionKindOf, useLocalApp, type LocalAppConnection } from '../../../lib/local-app/use-local-app.ts';
import type { TransitionProgress } from '../../../../shared/schemas/local-helper.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  local_checking,
  package_page_install,
  package_page_launch,
  package_page_local_busy,
  package_page_local_check,
  package_page_local_not_checked,
  package_page_local_not_installed,
  package_page_local_not_trusted,
  package_page_local_no_update,
  package_page_local_outdated,
  package_page_local_setup,
  package_page_local_unavailable,
  package_page_update,
  state_loading,
};

/** Where the local app path is set up (download, trust). */
export const localHref = '/local';

/**
 * What Install, Launch and Update act on: the package, and what the helper needs to install it; that
 * needs a branch and a version (spec §7 workdir_transition), so `installable` is undefined while they
 * load, or with `unavailable` saying why there is none.
 */
export type LocalTarget = { packageId: string; installable: InstallablePackage | undefined; unavailable?: string };

/** A button that cannot be used yet, with the reason next to it (and tied to it for screen readers). */
export function DisabledAction({ label, reasons, name }: { label: string; reasons: string[]; name: string }) {
  const reasonId = useId();
  return (
    <li className="package_launcher" data-action={name}>
      <button type="button" className="button" disabled aria-describedby={reasonId}>
        {label}
      </button>
      <span id={reasonId} className="package_launcher_reason">
        {reasons.join(' ')}
      </span>
    </li>
  );
}

/** 42 % as the language writes it. */
export function formatPercent(percent: number, language: string): string {
  return new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 0 }).format(percent / 100);
}

/** An action while its transition runs: disabled, with the percent done (spec §4: done/total). */
function ProgressAction({ label, name, progress }: { label: string; name: string; progress: TransitionProgress }) {
  const { language } = useLanguage();
  const reasonId = useId();
  const percent = progressPercent(progress);
  return (
    <li className="package_launcher" data-action={name} data-progress={percent}>
      <button type="button" className="button" disabled aria-describedby={reasonId} aria-busy="true">
        {label}
      </button>
      <span id={reasonId} className="package_launcher_reason package_launcher_progress" role="status">
        <progress max={100} value={percent} aria-hidden="true" />
        <bdi dir="ltr">{formatPercent(percent, language)}</bdi>
      </span>
    </li>
  );
}

/** Why the local actions are off while the app is not connected (spec §6: they need it). */
export function connectionReason(connection: LocalAppConnection): string {
  if (connection.status === 'not_trusted') return m.package_page_local_not_trusted();
  if (connection.status === 'outdated') return m.package_page_local_outdated();
  // Not asked yet (the app never answered in this browser), or being asked: nothing failed so far.
  if (connection.status === 'not_checked') return m.package_page_local_not_checked();
  if (connection.status === 'checking') return m.local_checking();
  return m.package_page_local_unavailable();
}

/** Nothing answered yet, or the probe failed: Check again asks now (the app may have just been started). */
const checkable = new Set<LocalAppConnection['status']>(['not_checked', 'checking', 'not_detected']);

/**
 * Install, Launch and Update (spec §2 package page, §4 install flow): all three need the local app
 * connected; Install opens the install dialog; Launch runs the workdir that has this package installed;
 * Update makes the workdir holding another version of the same branch hold this one. While a
 * transition of this package runs, the action that started it shows its percent. `compact` (the store's
 * package lists) leaves out the Launch and Update that cannot be used.
 */
export function LocalLaunchers({ target, compact = false }: { target: LocalTarget; compact?: boolean }) {
  const local = useLocalApp();
  const dialogs = useDialogs();
  const queryClient = useQueryClient();
  const actions = useWorkdirActions();
  const install = m.package_page_install();
  const launch = m.package_page_launch();
  const update = m.package_page_update();
  if (!local.connected) {
    const reasons = [connectionReason(local.connection)];
    return (
      <>
        <DisabledAction name="install" label={install} reasons={reasons} />
        {compact ? null : <DisabledAction name="launch" label={launch} reasons={reasons} />}
        {compact ? null : <DisabledAction name="update" label={update} reasons={reasons} />}
        {checkable.has(local.connection.status) ? (
          <li className="package_launcher" data-action="local_check">
            <button type="button" className="button" onClick={local.check} disabled={local.connection.status === 'checking'} aria-busy={local.connection.status === 'checking'}>
              {m.package_page_local_check()}
            </button>
          </li>
        ) : null}
        <li className="package_launcher" data-action="local_setup">
          <Link href={localHref}>{m.package_page_local_setup()}</Link>
        </li>
      </>
    );
  }
  const workdirs = local.workdirs.data;
  if (!workdirs) {
    const reasons = [m.state_loading()];
    return (
      <>
        <DisabledAction name="install" label={install} reasons={reasons} />
        {compact ? null : <DisabledAction name="launch" label={launch} reasons={reasons} />}
        {compact ? null : <DisabledAction name="update" label={update} reasons={reasons} />}
      </>
    );
  }
  const { installable } = target;
  const installed = installedWorkdir(workdirs, target.packageId);
  const updatable = installable ? updatableWorkdir(workdirs, installable) : undefined;
  // A transition on a workdir of this package (an install, an update to it, a repair of it), or on the
  // one Update would replace (the list may not say yet that it is becoming this package).
  const busy = workdirs.find(
    (workdir) => local.progressOf(workdir.id) && (workdir.package_id === target.packageId || (workdir.id === updatable?.id && transitionKindOf(workdir.id) === 'update')),
  );
  const progress = busy ? local.progressOf(busy.id) : undefined;
  const kind = busy ? (transitionKindOf(busy.id) ?? 'install') : undefined;
  const unavailable = [target.unavailable ?? m.state_loading()];

  const openInstall = async (pkg: InstallablePackage) => {
    await dialogs.open<string | null>((close) => <InstallPackageDialog pkg={pkg} onClose={close} />);
  };
  const startUpdate = async (pkg: InstallablePackage, workdirId: string) => {
    await dialogs.attempt(() => transitionTo(queryClient, pkg, { workdir: workdirId }, 'update'));
  };

  return (
    <>
      {progress && kind === 'install' ? (
        <ProgressAction name="install" label={install} progress={progress} />
      ) : installable ? (
        <li className="package_launcher" data-action="install">
          <button type="button" className="button" onClick={() => void openInstall(installable)}>
            {install}
          </button>
        </li>
      ) : (
        <DisabledAction name="install" label={install} reasons={unavailable} />
      )}
      {progress && kind === 'repair' ? (
        <ProgressAction name="launch" label={launch} progress={progress} />
      ) : progress && !compact ? (
        <DisabledAction name="launch" label={launch} reasons={[m.package_page_local_busy()]} />
      ) : installed ? (
        <li className="package_launcher" data-action="launch">
          <button type="button" className="button button_primary" onClick={() => void actions.launch(installed)}>
            {launch}
          </button>
        </li>
      ) : compact ? null : (
        <DisabledAction name="launch" label={launch} reasons={[m.package_page_local_not_installed()]} />
      )}
      {progress && kind === 'update' ? (
        <ProgressAction name="update" label={update} progress={progress} />
      ) : installable && updatable ? (
        <li className="package_launcher" data-action="update">
          <button type="button" className="button" onClick={() => void startUpdate(installable, updatable.id)}>
            {update}
          </button>
        </li>
      ) : compact ? null : (
        <DisabledAction name="update" label={update} reasons={installable ? [m.package_page_local_no_update()] : unavailable} />
      )}
    </>
  );
}
