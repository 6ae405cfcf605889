import { useId } from 'react';
import { Link } from 'wouter';
import { local_checking } from '../../../shared/i18n/paraglide/messages/local_checking.js';
import { local_connected } from '../../../shared/i18n/paraglide/messages/local_connected.js';
import { local_docs_link } from '../../../shared/i18n/paraglide/messages/local_docs_link.js';
import { local_download_heading } from '../../../shared/i18n/paraglide/messages/local_download_heading.js';
import { local_not_detected_text } from '../../../shared/i18n/paraglide/messages/local_not_detected_text.js';
import { local_not_detected_title } from '../../../shared/i18n/paraglide/messages/local_not_detected_title.js';
import { local_not_trusted_text } from '../../../shared/i18n/paraglide/messages/local_not_trusted_text.js';
import { local_not_trusted_title } from '../../../shared/i18n/paraglide/messages/local_not_trusted_title.js';
import { local_outdated_text } from '../../../shared/i18n/paraglide/messages/local_outdated_text.js';
import { local_outdated_title } from '../../../shared/i18n/paraglide/messages/local_outdated_title.js';
import { local_running_heading } from '../../../shared/i18n/paraglide/messages/local_running_heading.js';
import { local_running_text } from '../../../shared/i18n/paraglide/messages/local_running_text.js';
import { local_trust_hint } from '../../../shared/i18n/paraglide/messages/local_trust_hint.js';
import { state_retry } from '../../../shared/i18n/paraglide/messages/state_retry.js';
import { ErrorState, LoadingState } from '../../components/states.tsx';
import { useLanguage } from '../../lib/i18n/index.ts';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import type { LocalApp } from '../../lib/local-app/use-local-app.ts';
import { CopyCommand, LocalAppDownloadList } from './local-app-downloads.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  local_checking,
  local_connected,
  local_docs_link,
  local_download_heading,
  local_not_detected_text,
  local_not_detected_title,
  local_not_trusted_text,
  local_not_trusted_title,
  local_outdated_text,
  local_outdated_title,
  local_running_heading,
  local_running_text,
  local_trust_hint,
  state_retry,
};

const code = (text: string) => <code dir="ltr">{text}</code>;

/** Retry (asks the app again) and the documentation page of the local app. */
function WarningActions({ onRetry }: { onRetry: () => void }) {
  const { language } = useLanguage();
  return (
    <div className="actions local_warning_actions">
      <button type="button" className="button button_primary" onClick={onRetry}>
        {m.state_retry()}
      </button>
      <Link href={`/docs/${encodeURIComponent(language)}/local-app`}>{m.local_docs_link()}</Link>
    </div>
  );
}

/**
 * The connection to the local app (spec §2 'local', §8 'Local app not detected' warning): connected with
 * its version; or what to do — download it for this computer, start it and keep it running (not
 * detected), trust this site with the command the app names (not trusted), or replace it (outdated).
 */
export function LocalAppStatus({ local }: { local: LocalApp }) {
  const titleId = useId();
  const connection = local.connection;
  const origin = typeof location === 'undefined' ? '' : location.origin;
  switch (connection.status) {
    // /local always asks: not_checked lasts only until its first request starts.
    case 'not_checked':
    case 'checking':
      return <LoadingState label={m.local_checking()} />;
    case 'connected':
      return (
        <p className="notice local_connected" role="status" data-status="connected">
          {rich(m.local_connected({ version: slot('version') }), { version: <bdi dir="ltr">{`${connection.version.version} (${connection.version.platform}-${connection.version.arch})`}</bdi> })}
        </p>
      );
    case 'error':
      return <ErrorState error={connection.error} onRetry={local.retry} />;
    case 'not_trusted':
      return (
        <section className="section local_warning" aria-labelledby={titleId} data-status="not_trusted">
          <h2 id={titleId}>{m.local_not_trusted_title()}</h2>
          <p>{m.local_not_trusted_text()}</p>
          <CopyCommand command={connection.command} />
          <WarningActions onRetry={local.retry} />
        </section>
      );
    case 'outdated':
      return (
        <section className="section local_warning" aria-labelledby={titleId} data-status="outdated">
          <h2 id={titleId}>{m.local_outdated_title()}</h2>
          <p>{rich(m.local_outdated_text({ version: slot('version') }), { version: <bdi dir="ltr">{connection.version.version}</bdi> })}</p>
          <LocalAppDownloadList />
          <WarningActions onRetry={local.retry} />
        </section>
      );
    case 'not_detected':
      return (
        <section className="section local_warning" aria-labelledby={titleId} data-status="not_detected">
          <h2 id={titleId}>{m.local_not_detected_title()}</h2>
          <p>{m.local_not_detected_text()}</p>
          <h3>{m.local_download_heading()}</h3>
          <LocalAppDownloadList />
          <h3>{m.local_running_heading()}</h3>
          <p>{rich(m.local_running_text({ command: slot('command') }), { command: code('cartridge-helper') })}</p>
          <p>{rich(m.local_trust_hint({ command: slot('command') }), { command: code(`cartridge-helper trust ${origin}`) })}</p>
          <WarningActions onRetry={local.retry} />
        </section>
      );
  }
}
