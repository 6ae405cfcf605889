import { useId } from 'react';
import { local_branch } from '../../../shared/i18n/paraglide/messages/local_branch.js';
import { package_page_launch } from '../../../shared/i18n/paraglide/messages/package_page_launch.js';
import { local_package } from '../../../shared/i18n/paraglide/messages/local_package.js';
import { local_repair } from '../../../shared/i18n/paraglide/messages/local_repair.js';
import { local_show_folder } from '../../../shared/i18n/paraglide/messages/local_show_folder.js';
import { local_size } from '../../../shared/i18n/paraglide/messages/local_size.js';
import { local_state } from '../../../shared/i18n/paraglide/messages/local_state.js';
import { local_state_damaged } from '../../../shared/i18n/paraglide/messages/local_state_damaged.js';
import { local_state_empty } from '../../../shared/i18n/paraglide/messages/local_state_empty.js';
import { local_state_installed } from '../../../shared/i18n/paraglide/messages/local_state_installed.js';
import { local_state_installing } from '../../../shared/i18n/paraglide/messages/local_state_installing.js';
import { local_state_repairing } from '../../../shared/i18n/paraglide/messages/local_state_repairing.js';
import { local_state_running } from '../../../shared/i18n/paraglide/messages/local_state_running.js';
import { local_uninstall } from '../../../shared/i18n/paraglide/messages/local_uninstall.js';
import { local_version } from '../../../shared/i18n/paraglide/messages/local_version.js';
import { row_menu_label } from '../../../shared/i18n/paraglide/messages/row_menu_label.js';
import { Size } from '../../components/size.tsx';
import { useLanguage } from '../../lib/i18n/index.ts';
import { RowMenu } from '../../components/row-menu.tsx';
import { useWorkdirActions, workdirTitle } from '../../lib/local-app/actions.tsx';
import { folderNameOf } from '../../lib/local-app/install.ts';
import { progressPercent, transitionKindOf } from '../../lib/local-app/use-local-app.ts';
import type { TransitionProgress, Workdir } from '../../../shared/schemas/local-helper.ts';
import { formatPercent } from '../projects/package/local-launchers.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  local_branch,
  local_package,
  local_repair,
  local_show_folder,
  local_size,
  local_state,
  local_state_damaged,
  local_state_empty,
  local_state_installed,
  local_state_installing,
  local_state_repairing,
  local_state_running,
  local_uninstall,
  local_version,
  package_page_launch,
  row_menu_label,
};

const stateTexts = {
  empty: m.local_state_empty,
  installing: m.local_state_installing,
  installed: m.local_state_installed,
  damaged: m.local_state_damaged,
} as const;

/**
 * One installed package: project, branch, version and package titles, size, state (with the percent of a
 * running transition), folder; Launch (when something is installed), then one menu: Repair (when there are
 * files), Show folder, Uninstall.
 */
export function WorkdirRow({ workdir, progress }: { workdir: Workdir; progress: TransitionProgress | undefined }) {
  const { language } = useLanguage();
  const actions = useWorkdirActions();
  const titleId = useId();
  const repairing = progress !== undefined && transitionKindOf(workdir.id) === 'repair';
  const hasFiles = workdir.state === 'installed' || workdir.state === 'damaged';
  const stateText = repairing ? m.local_state_repairing() : progress ? m.local_state_installing() : stateTexts[workdir.state]();
  const percent = progress ? progressPercent(progress) : undefined;
  return (
    <li className="item local_workdir" data-workdir-id={workdir.id} data-state={workdir.state} aria-labelledby={titleId}>
      <div className="local_workdir_main">
        <p id={titleId} className="item_title">
          <bdi>{workdir.project_title ?? folderNameOf(workdir)}</bdi>
        </p>
        <dl className="item_facts">
          {workdir.branch_title !== undefined ? (
            <div>
              <dt>{m.local_branch()}</dt>
              <dd>
                <bdi>{workdir.branch_title}</bdi>
              </dd>
            </div>
          ) : null}
          {workdir.version_title !== undefined ? (
            <div>
              <dt>{m.local_version()}</dt>
              <dd>
                <bdi>{workdir.version_title}</bdi>
              </dd>
            </div>
          ) : null}
          {workdir.package_title !== undefined ? (
            <div>
              <dt>{m.local_package()}</dt>
              <dd>
                <bdi>{workdir.package_title}</bdi>
              </dd>
            </div>
          ) : null}
          <div>
            <dt>{m.local_size()}</dt>
            <dd>
              <Size bytes={workdir.size} />
            </dd>
          </div>
          <div>
            <dt>{m.local_state()}</dt>
            <dd className="local_workdir_state" data-testid="workdir-state">
              {stateText}
              {workdir.running ? ` · ${m.local_state_running()}` : ''}
            </dd>
          </div>
        </dl>
        <p className="local_path">
          <bdi dir="ltr">{workdir.local_path}</bdi>
        </p>
        {percent !== undefined ? (
          <p className="local_progress" role="status" data-progress={percent}>
            <progress max={100} value={percent} aria-label={stateText} /> <bdi dir="ltr">{formatPercent(percent, language)}</bdi>
          </p>
        ) : null}
        {workdir.error && !progress ? <p className="local_workdir_error">{workdir.error}</p> : null}
      </div>
      <div className="actions local_workdir_actions" role="group" aria-labelledby={titleId}>
        <button type="button" className="button button_primary" disabled={workdir.state !== 'installed' || progress !== undefined} onClick={() => void actions.launch(workdir)}>
          {m.package_page_launch()}
        </button>
        <RowMenu
          label={m.row_menu_label({ name: workdirTitle(workdir) })}
          items={[
            { key: 'repair', label: m.local_repair(), disabled: !hasFiles || progress !== undefined, onSelect: () => void actions.repair(workdir) },
            { key: 'show_folder', label: m.local_show_folder(), onSelect: () => void actions.showFolder(workdir) },
            { key: 'uninstall', label: m.local_uninstall(), danger: true, disabled: progress !== undefined, onSelect: () => void actions.uninstall(workdir) },
          ]}
        />
      </div>
    </li>
  );
}
