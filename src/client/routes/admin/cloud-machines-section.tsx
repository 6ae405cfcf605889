import { useId, type FormEvent } from 'react';
import { admin_machine_add } from '../../../shared/i18n/paraglide/messages/admin_machine_add.js';
import { admin_machine_add_heading } from '../../../shared/i18n/paraglide/messages/admin_machine_add_heading.js';
import { admin_machine_capacity } from '../../../shared/i18n/paraglide/messages/admin_machine_capacity.js';
import { admin_machine_created_howto } from '../../../shared/i18n/paraglide/messages/admin_machine_created_howto.js';
import { admin_machine_created_text } from '../../../shared/i18n/paraglide/messages/admin_machine_created_text.js';
import { admin_machine_created_title } from '../../../shared/i18n/paraglide/messages/admin_machine_created_title.js';
import { admin_machine_last_seen } from '../../../shared/i18n/paraglide/messages/admin_machine_last_seen.js';
import { admin_machine_name } from '../../../shared/i18n/paraglide/messages/admin_machine_name.js';
import { admin_machine_never_seen } from '../../../shared/i18n/paraglide/messages/admin_machine_never_seen.js';
import { admin_machine_revoke } from '../../../shared/i18n/paraglide/messages/admin_machine_revoke.js';
import { admin_machine_revoke_text } from '../../../shared/i18n/paraglide/messages/admin_machine_revoke_text.js';
import { admin_machine_revoke_title } from '../../../shared/i18n/paraglide/messages/admin_machine_revoke_title.js';
import { admin_machine_revoked } from '../../../shared/i18n/paraglide/messages/admin_machine_revoked.js';
import { admin_machine_sessions } from '../../../shared/i18n/paraglide/messages/admin_machine_sessions.js';
import { admin_machine_token_label } from '../../../shared/i18n/paraglide/messages/admin_machine_token_label.js';
import { admin_machine_version } from '../../../shared/i18n/paraglide/messages/admin_machine_version.js';
import { admin_machine_version_unknown } from '../../../shared/i18n/paraglide/messages/admin_machine_version_unknown.js';
import { admin_machines_empty } from '../../../shared/i18n/paraglide/messages/admin_machines_empty.js';
import { admin_machines_heading } from '../../../shared/i18n/paraglide/messages/admin_machines_heading.js';
import { admin_machines_intro } from '../../../shared/i18n/paraglide/messages/admin_machines_intro.js';
import { FormField } from '../../components/form-field.tsx';
import { EmptyState, ErrorState, LoadingState } from '../../components/states.tsx';
import { useDialogs } from '../../dialogs/dialog-provider.tsx';
import { fieldValue } from '../../lib/form.ts';
import { useLanguage } from '../../lib/i18n/index.ts';
import { trpc } from '../../lib/trpc.ts';
import { formatDateTime } from '../../../shared/format/date.ts';
import type { CloudMachine } from '../../../shared/schemas/cloud-play.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  admin_machine_add,
  admin_machine_add_heading,
  admin_machine_capacity,
  admin_machine_created_howto,
  admin_machine_created_text,
  admin_machine_created_title,
  admin_machine_last_seen,
  admin_machine_name,
  admin_machine_never_seen,
  admin_machine_revoke,
  admin_machine_revoke_text,
  admin_machine_revoke_title,
  admin_machine_revoked,
  admin_machine_sessions,
  admin_machine_token_label,
  admin_machine_version,
  admin_machine_version_unknown,
  admin_machines_empty,
  admin_machines_heading,
  admin_machines_intro,
};

/** The longest machine title the server accepts (createCloudMachineInput). */
const TITLE_MAX_LENGTH = 64;

/** How an operator starts the host agent on a new machine (the token saved in a file there). */
export function agentCommand(publicUrl: string): string {
  return `node dist/cloudhost.js --server ${publicUrl} --token-file /etc/cartridge/machine-token`;
}

/** Cloud-play machines (admin.cloudMachines): the list, adding one (its token shown once), revoking. */
export function CloudMachinesSection() {
  const machines = trpc.admin.cloudMachines.list.useQuery();
  return (
    <section className="section" aria-labelledby="admin-machines">
      <h2 id="admin-machines">{m.admin_machines_heading()}</h2>
      <p className="section_intro">{m.admin_machines_intro()}</p>
      {machines.isPending ? <LoadingState /> : null}
      {machines.error ? <ErrorState error={machines.error} onRetry={() => void machines.refetch()} /> : null}
      {machines.data && machines.data.length === 0 ? <EmptyState icon="servers">{m.admin_machines_empty()}</EmptyState> : null}
      {machines.data && machines.data.length > 0 ? (
        <ul className="item_list" aria-labelledby="admin-machines">
          {machines.data.map((machine) => (
            <MachineRow key={machine.id} machine={machine} />
          ))}
        </ul>
      ) : null}
      <AddMachineForm />
    </section>
  );
}

function MachineRow({ machine }: { machine: CloudMachine }) {
  const dialogs = useDialogs();
  const { language } = useLanguage();
  const utils = trpc.useUtils();
  const revoke = trpc.admin.cloudMachines.revoke.useMutation();
  const startRevoke = async () => {
    const confirmed = await dialogs.confirm({
      title: m.admin_machine_revoke_title(),
      message: m.admin_machine_revoke_text({ title: machine.title }),
      confirmLabel: m.admin_machine_revoke(),
      danger: true,
      defaultFocus: 'cancel',
    });
    if (!confirmed) return;
    await dialogs.attempt(() => revoke.mutateAsync({ machine: machine.id }));
    await utils.admin.cloudMachines.list.invalidate();
  };
  return (
    <li className="item admin_machine" data-machine-id={machine.id} data-revoked={machine.revoked ? 'true' : undefined}>
      <div className="item_main">
        <span className="item_title">
          <bdi>{machine.title}</bdi>
        </span>
        {machine.revoked ? <span className="badge admin_badge_revoked">{m.admin_machine_revoked()}</span> : null}
        <dl className="item_facts">
          <div>
            <dt>{m.admin_machine_last_seen()}</dt>
            <dd data-fact="last-seen">{machine.lastSeen ? <time dateTime={machine.lastSeen}>{formatDateTime(machine.lastSeen, language)}</time> : m.admin_machine_never_seen()}</dd>
          </div>
          <div>
            <dt>{m.admin_machine_capacity()}</dt>
            <dd data-fact="capacity">{machine.capacity.toLocaleString(language)}</dd>
          </div>
          <div>
            <dt>{m.admin_machine_sessions()}</dt>
            <dd data-fact="sessions">{machine.liveSessions.toLocaleString(language)}</dd>
          </div>
          <div>
            <dt>{m.admin_machine_version()}</dt>
            <dd data-fact="version">{machine.agentVersion ? <bdi>{machine.agentVersion}</bdi> : m.admin_machine_version_unknown()}</dd>
          </div>
        </dl>
      </div>
      {machine.revoked ? null : (
        <button type="button" className="button button_quiet button_danger_text" onClick={() => void startRevoke()} aria-label={`${m.admin_machine_revoke()}: ${machine.title}`}>
          {m.admin_machine_revoke()}
        </button>
      )}
    </li>
  );
}

function AddMachineForm() {
  const dialogs = useDialogs();
  const utils = trpc.useUtils();
  const create = trpc.admin.cloudMachines.create.useMutation();
  const headingId = useId();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const title = fieldValue(formElement, 'title').trim();
    if (!title) return;
    const created = await dialogs.attempt(() => create.mutateAsync({ title }));
    if (!created) return;
    formElement.reset();
    await utils.admin.cloudMachines.list.invalidate();
    await dialogs.copyText({
      title: m.admin_machine_created_title(),
      label: m.admin_machine_token_label(),
      text: created.token,
      message: (
        <>
          <p>{m.admin_machine_created_text()}</p>
          <p>{m.admin_machine_created_howto()}</p>
          <pre className="admin_agent_command" dir="ltr">
            <code>{agentCommand(window.location.origin)}</code>
          </pre>
        </>
      ),
    });
  };

  return (
    <form className="form admin_machine_form" onSubmit={submit} aria-labelledby={headingId}>
      <h3 id={headingId}>{m.admin_machine_add_heading()}</h3>
      <FormField label={m.admin_machine_name()}>{(control) => <input {...control} name="title" className="input" maxLength={TITLE_MAX_LENGTH} required autoComplete="off" />}</FormField>
      <div className="actions">
        <button type="submit" className="button button_primary" aria-disabled={create.isPending ? true : undefined}>
          {m.admin_machine_add()}
        </button>
      </div>
    </form>
  );
}
