import { useId, useState, type FormEvent } from 'react';
import { dialog_error_message } from '../../shared/i18n/paraglide/messages/dialog_error_message.js';
import { invite_link_admin } from '../../shared/i18n/paraglide/messages/invite_link_admin.js';
import { invite_link_approval } from '../../shared/i18n/paraglide/messages/invite_link_approval.js';
import { invite_link_create } from '../../shared/i18n/paraglide/messages/invite_link_create.js';
import { invite_link_date } from '../../shared/i18n/paraglide/messages/invite_link_date.js';
import { invite_link_date_invalid } from '../../shared/i18n/paraglide/messages/invite_link_date_invalid.js';
import { invite_link_expiry } from '../../shared/i18n/paraglide/messages/invite_link_expiry.js';
import { invite_link_expiry_never } from '../../shared/i18n/paraglide/messages/invite_link_expiry_never.js';
import { invite_link_expiry_on } from '../../shared/i18n/paraglide/messages/invite_link_expiry_on.js';
import { invite_link_immediate } from '../../shared/i18n/paraglide/messages/invite_link_immediate.js';
import { invite_link_seats } from '../../shared/i18n/paraglide/messages/invite_link_seats.js';
import { invite_link_seats_count } from '../../shared/i18n/paraglide/messages/invite_link_seats_count.js';
import { invite_link_seats_invalid } from '../../shared/i18n/paraglide/messages/invite_link_seats_invalid.js';
import { invite_link_seats_limit } from '../../shared/i18n/paraglide/messages/invite_link_seats_limit.js';
import { invite_link_seats_none } from '../../shared/i18n/paraglide/messages/invite_link_seats_none.js';
import { invite_link_title } from '../../shared/i18n/paraglide/messages/invite_link_title.js';
import { FormField } from '../components/form-field.tsx';
import { RadioChoices } from '../components/radio-choices.tsx';
import { errorText, toDisplayError } from '../lib/errors.ts';
import { trpc } from '../lib/trpc.ts';
import type { CreatedInvite } from '../../shared/schemas/projects.ts';
import { Modal } from './modal.tsx';
import { DialogFooter } from './dialog-footer.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { dialog_error_message, invite_link_admin, invite_link_approval, invite_link_create, invite_link_date, invite_link_date_invalid, invite_link_expiry, invite_link_expiry_never, invite_link_expiry_on, invite_link_immediate, invite_link_seats, invite_link_seats_count, invite_link_seats_invalid, invite_link_seats_limit, invite_link_seats_none, invite_link_title };

/** createInviteInput's bound on seats. */
const maxSeats = 1_000_000;

/** A date input's value (a local day) → the end of that day; undefined unless it is today or later. */
export function endOfDay(day: string, now = new Date()): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const end = new Date(`${day}T23:59:59.999`);
  return Number.isNaN(end.getTime()) || end.getTime() <= now.getTime() ? undefined : end;
}

/** A whole number of seats within the server's bounds, or undefined. */
export function parseSeats(text: string): number | undefined {
  if (!/^\d+$/.test(text.trim())) return undefined;
  const seats = Number(text.trim());
  return seats >= 1 && seats <= maxSeats ? seats : undefined;
}

function localDay(date: Date): string {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

/**
 * Spec §2 'create invite link': expiry (none by default, or a last day), approval mode (immediate, or
 * admin approval: joiners wait as pending members), seat limit (none by default, or a number). Creates
 * the invite itself and closes with it (the caller shows the link once), or with null when cancelled.
 */
export function CreateInviteLinkDialog({ projectId, onClose }: { projectId: string; onClose: (created: CreatedInvite | null) => void }) {
  const create = trpc.projects.invites.create.useMutation();
  const problemId = useId();
  const [expiry, setExpiry] = useState<'never' | 'date'>('never');
  const [day, setDay] = useState('');
  const [approval, setApproval] = useState<'immediate' | 'admin'>('immediate');
  const [seatMode, setSeatMode] = useState<'none' | 'limit'>('none');
  const [seatsText, setSeatsText] = useState('');
  const [problems, setProblems] = useState<{ date?: string; seats?: string; server?: string }>({});

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (create.isPending) return;
    const expires = expiry === 'date' ? endOfDay(day) : null;
    const seats = seatMode === 'limit' ? parseSeats(seatsText) : null;
    const found = { date: expires === undefined ? m.invite_link_date_invalid() : undefined, seats: seats === undefined ? m.invite_link_seats_invalid() : undefined };
    setProblems(found);
    if (expires === undefined || seats === undefined) return;
    try {
      const created = await create.mutateAsync({ project: projectId, approved: approval === 'immediate', expires: expires?.toISOString() ?? null, seats, oneTime: false });
      onClose(created);
    } catch (failure) {
      setProblems({ server: m.dialog_error_message({ text: errorText(toDisplayError(failure)) }) });
    }
  };

  return (
    <Modal title={m.invite_link_title()} onCancel={() => onClose(null)}>
      <form className="dialog_form" onSubmit={(event) => void submit(event)} noValidate>
        <fieldset className="field">
          <legend>{m.invite_link_expiry()}</legend>
          <RadioChoices name="expiry" options={[{ value: 'never', label: m.invite_link_expiry_never() }, { value: 'date', label: m.invite_link_expiry_on() }]} selected={expiry} onSelect={setExpiry} autoFocus />
          {expiry === 'date' ? (
            <FormField label={m.invite_link_date()} error={problems.date}>
              {(control) => <input {...control} type="date" className="input" min={localDay(new Date())} value={day} onChange={(event) => setDay(event.currentTarget.value)} />}
            </FormField>
          ) : null}
        </fieldset>
        <fieldset className="field">
          <legend>{m.invite_link_approval()}</legend>
          <RadioChoices name="approval" options={[{ value: 'immediate', label: m.invite_link_immediate() }, { value: 'admin', label: m.invite_link_admin() }]} selected={approval} onSelect={setApproval} />
        </fieldset>
        <fieldset className="field">
          <legend>{m.invite_link_seats()}</legend>
          <RadioChoices name="seats" options={[{ value: 'none', label: m.invite_link_seats_none() }, { value: 'limit', label: m.invite_link_seats_limit() }]} selected={seatMode} onSelect={setSeatMode} />
          {seatMode === 'limit' ? (
            <FormField label={m.invite_link_seats_count()} error={problems.seats}>
              {(control) => (
                <input
                  {...control}
                  type="number"
                  inputMode="numeric"
                  className="input"
                  min={1}
                  max={maxSeats}
                  step={1}
                  value={seatsText}
                  onChange={(event) => setSeatsText(event.currentTarget.value)}
                />
              )}
            </FormField>
          ) : null}
        </fieldset>
        <DialogFooter problem={problems.server} problemId={problemId} onCancel={() => onClose(null)} submit={{ label: m.invite_link_create(), pending: create.isPending }} />
      </form>
    </Modal>
  );
}
