import { upload_status_creating } from '../../../shared/i18n/paraglide/messages/upload_status_creating.js';
import { upload_status_done } from '../../../shared/i18n/paraglide/messages/upload_status_done.js';
import { upload_status_errored } from '../../../shared/i18n/paraglide/messages/upload_status_errored.js';
import { upload_status_existing } from '../../../shared/i18n/paraglide/messages/upload_status_existing.js';
import { upload_status_finalizing } from '../../../shared/i18n/paraglide/messages/upload_status_finalizing.js';
import { upload_status_packing } from '../../../shared/i18n/paraglide/messages/upload_status_packing.js';
import { upload_status_queued } from '../../../shared/i18n/paraglide/messages/upload_status_queued.js';
import { upload_status_resolving } from '../../../shared/i18n/paraglide/messages/upload_status_resolving.js';
import { upload_status_retrying } from '../../../shared/i18n/paraglide/messages/upload_status_retrying.js';
import { upload_status_splitting } from '../../../shared/i18n/paraglide/messages/upload_status_splitting.js';
import { upload_status_uploading } from '../../../shared/i18n/paraglide/messages/upload_status_uploading.js';
import { errorText } from '../../lib/errors.ts';
import { Size } from '../../components/size.tsx';
import { isRetrying, type PackageUploadState, type PackageUploadStatus } from '../../../shared/upload/statuses.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { upload_status_creating, upload_status_done, upload_status_errored, upload_status_existing, upload_status_finalizing, upload_status_packing, upload_status_queued, upload_status_resolving, upload_status_retrying, upload_status_splitting, upload_status_uploading };

function uploadStatusText(status: PackageUploadStatus): string {
  if (isRetrying(status)) return m.upload_status_retrying();
  switch (status) {
    case 'existing':
      return m.upload_status_existing();
    case 'queued':
      return m.upload_status_queued();
    case 'packing':
      return m.upload_status_packing();
    case 'creating':
      return m.upload_status_creating();
    case 'splitting':
      return m.upload_status_splitting();
    case 'uploading':
      return m.upload_status_uploading();
    case 'finalizing':
      return m.upload_status_finalizing();
    case 'resolving':
      return m.upload_status_resolving();
    case 'done':
      return m.upload_status_done();
    default:
      return m.upload_status_errored();
  }
}

/** Status, progress (3 decimals of the fraction, spec §9) and the bytes this upload carries. */
export function UploadStatusLine({ state }: { state: PackageUploadState }) {
  const showProgress = state.status !== 'existing' && state.status !== 'errored';
  return (
    <span className="upload_status" role="status" aria-live="polite">
      <span className="upload_status_text">{uploadStatusText(state.status)}</span>
      {state.status === 'errored' && state.error ? <span className="upload_status_error"> {errorText({ code: state.error })}</span> : null}
      {showProgress ? (
        <progress className="upload_progress" max={1} value={state.progress} aria-valuetext={`${(state.progress * 100).toFixed(1)}%`}>
          {(state.progress * 100).toFixed(1)}%
        </progress>
      ) : null}
      {showProgress ? <span className="upload_percent">{(state.progress * 100).toFixed(1)}%</span> : null}
      {state.size !== null && state.status !== 'existing' ? (
        <Size bytes={state.size} className="upload_size" />
      ) : null}
    </span>
  );
}
