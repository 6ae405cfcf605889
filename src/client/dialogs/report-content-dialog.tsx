import { useId, useState } from 'react';
import { report_body_address } from '../../shared/i18n/paraglide/messages/report_body_address.js';
import { report_body_details } from '../../shared/i18n/paraglide/messages/report_body_details.js';
import { report_body_project } from '../../shared/i18n/paraglide/messages/report_body_project.js';
import { report_body_reason } from '../../shared/i18n/paraglide/messages/report_body_reason.js';
import { report_close } from '../../shared/i18n/paraglide/messages/report_close.js';
import { report_details_hint } from '../../shared/i18n/paraglide/messages/report_details_hint.js';
import { report_details_label } from '../../shared/i18n/paraglide/messages/report_details_label.js';
import { report_intro } from '../../shared/i18n/paraglide/messages/report_intro.js';
import { report_no_recipient } from '../../shared/i18n/paraglide/messages/report_no_recipient.js';
import { report_reason_copyright } from '../../shared/i18n/paraglide/messages/report_reason_copyright.js';
import { report_reason_illegal } from '../../shared/i18n/paraglide/messages/report_reason_illegal.js';
import { report_reason_label } from '../../shared/i18n/paraglide/messages/report_reason_label.js';
import { report_reason_malware } from '../../shared/i18n/paraglide/messages/report_reason_malware.js';
import { report_reason_offensive } from '../../shared/i18n/paraglide/messages/report_reason_offensive.js';
import { report_reason_other } from '../../shared/i18n/paraglide/messages/report_reason_other.js';
import { report_recipient } from '../../shared/i18n/paraglide/messages/report_recipient.js';
import { report_subject } from '../../shared/i18n/paraglide/messages/report_subject.js';
import { report_title } from '../../shared/i18n/paraglide/messages/report_title.js';
import { report_write_mail } from '../../shared/i18n/paraglide/messages/report_write_mail.js';
import { FormField } from '../components/form-field.tsx';
import { Modal } from './modal.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  report_body_address,
  report_body_details,
  report_body_project,
  report_body_reason,
  report_close,
  report_details_hint,
  report_details_label,
  report_intro,
  report_no_recipient,
  report_reason_copyright,
  report_reason_illegal,
  report_reason_label,
  report_reason_malware,
  report_reason_offensive,
  report_reason_other,
  report_recipient,
  report_subject,
  report_title,
  report_write_mail,
};

const reportReasons = ['illegal', 'copyright', 'malware', 'offensive', 'other'] as const;
export type ReportReason = (typeof reportReasons)[number];

function reasonText(reason: ReportReason) {
  switch (reason) {
    case 'illegal':
      return m.report_reason_illegal();
    case 'copyright':
      return m.report_reason_copyright();
    case 'malware':
      return m.report_reason_malware();
    case 'offensive':
      return m.report_reason_offensive();
    case 'other':
      return m.report_reason_other();
  }
}

export type ReportTarget = { projectTitle: string; url: string };

/**
 * Spec §2 'report content (mail link with subject and body)'. encodeURIComponent, not
 * URLSearchParams: mail programs read '+' literally, so spaces must be %20. No recipient when the
 * instance has no REPORT_EMAIL: the user picks one in their mail program.
 */
export function reportMailto(recipient: string | null, target: ReportTarget, reason: ReportReason, details: string): string {
  const subject = m.report_subject({ project: target.projectTitle });
  const lines: string[] = [m.report_body_project({ project: target.projectTitle }), m.report_body_address({ url: target.url }), m.report_body_reason({ reason: reasonText(reason) })];
  const trimmed = details.trim();
  if (trimmed) lines.push('', m.report_body_details(), ...trimmed.split(/\r?\n/));
  // Mail bodies use CRLF line breaks (RFC 6068).
  const body = lines.join('\r\n');
  return `mailto:${recipient ? encodeURIComponent(recipient).replace(/%40/g, '@') : ''}?subject=${encodeURIComponent(subject)}&body=${encodeURIComponent(body)}`;
}

/** Explains, takes a reason and details, then offers the prepared mail as a link the user follows. */
export function ReportContentDialog({ target, recipient, onClose }: { target: ReportTarget; recipient: string | null; onClose: () => void }) {
  const introId = useId();
  const [reason, setReason] = useState<ReportReason>('illegal');
  const [details, setDetails] = useState('');
  return (
    <Modal title={m.report_title()} onCancel={onClose} describedBy={introId}>
      <div className="dialog_form report_form">
        <p id={introId} className="dialog_body">
          {m.report_intro()}
        </p>
        <fieldset className="field">
          <legend>{m.report_reason_label()}</legend>
          {reportReasons.map((value, index) => (
            <label key={value} className="choice">
              <input type="radio" name="report-reason" value={value} checked={reason === value} data-autofocus={index === 0 ? true : undefined} onChange={() => setReason(value)} />
              {reasonText(value)}
            </label>
          ))}
        </fieldset>
        <FormField label={m.report_details_label()} hint={m.report_details_hint()}>
          {(control) => <textarea {...control} className="input report_details" rows={5} maxLength={4000} value={details} onChange={(event) => setDetails(event.target.value)} />}
        </FormField>
        <p className="field_hint">{recipient ? m.report_recipient({ email: recipient }) : m.report_no_recipient()}</p>
        <div className="dialog_actions">
          <button type="button" className="button" onClick={onClose}>
            {m.report_close()}
          </button>
          <a className="button button_primary" href={reportMailto(recipient, target, reason, details)}>
            {m.report_write_mail()}
          </a>
        </div>
      </div>
    </Modal>
  );
}
