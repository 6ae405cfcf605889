import { Size } from '../../components/size.tsx';
import { rich, slot } from '../../lib/i18n/rich.tsx';
import { dialog_retry } from '../../../shared/i18n/paraglide/messages/dialog_retry.js';
import { new_package_base_failed } from '../../../shared/i18n/paraglide/messages/new_package_base_failed.js';
import { new_package_base_loading } from '../../../shared/i18n/paraglide/messages/new_package_base_loading.js';
import { new_package_indexing } from '../../../shared/i18n/paraglide/messages/new_package_indexing.js';
import { new_package_patch_size } from '../../../shared/i18n/paraglide/messages/new_package_patch_size.js';
import { new_package_read_failed } from '../../../shared/i18n/paraglide/messages/new_package_read_failed.js';
import { new_package_summary_one } from '../../../shared/i18n/paraglide/messages/new_package_summary_one.js';
import { new_package_summary_other } from '../../../shared/i18n/paraglide/messages/new_package_summary_other.js';
import { new_package_too_large } from '../../../shared/i18n/paraglide/messages/new_package_too_large.js';
import { new_package_upload_size } from '../../../shared/i18n/paraglide/messages/new_package_upload_size.js';
import type { UploadEstimate } from './package-index.ts';
import type { BaseIndexState, IndexState } from './use-package-index.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  dialog_retry,
  new_package_base_failed,
  new_package_base_loading,
  new_package_indexing,
  new_package_patch_size,
  new_package_read_failed,
  new_package_summary_one,
  new_package_summary_other,
  new_package_too_large,
  new_package_upload_size,
};

type Props = {
  files: { count: number; size: number };
  index: IndexState;
  base: BaseIndexState;
  estimate: UploadEstimate | null;
  maxSize: number | null;
};

/** Whether the upload fits the project's packageSize quota (spec §5 max size); unknown counts as fitting. */
export function isTooLarge(estimate: UploadEstimate | null, maxSize: number | null): boolean {
  return estimate !== null && maxSize !== null && estimate.uploadSize > maxSize;
}

/** Files, total size, indexing progress, what the upload sends (the patch with a base) and the limit. */
export function SizeSummary({ files, index, base, estimate, maxSize }: Props) {
  // Sizes sit in their sentences as isolated elements (they would read 'KiB 197' right-to-left otherwise).
  const size = (bytes: number) => <Size bytes={bytes} />;
  const summary = rich((files.count === 1 ? m.new_package_summary_one : m.new_package_summary_other)({ count: files.count, size: slot('size') }), { size: size(files.size) });
  const percent = index.status === 'indexing' && index.progress.total > 0 ? Math.floor((index.progress.done / index.progress.total) * 100) : 0;
  return (
    <div className="new_package_sizes">
      <p className="new_package_summary" data-testid="new-package-summary">
        {summary}
      </p>
      <div role="status" className="new_package_status">
        {base.status === 'loading' ? <p>{m.new_package_base_loading()}</p> : null}
        {files.count > 0 && index.status === 'indexing' ? <p>{m.new_package_indexing({ percent: String(percent) })}</p> : null}
        {files.count > 0 && estimate ? (
          <p data-testid="new-package-upload-size">
            {base.status === 'ready' && estimate.uploadSize < estimate.fullSize
              ? rich(m.new_package_patch_size({ patch: slot('patch'), total: slot('total') }), { patch: size(estimate.uploadSize), total: size(estimate.fullSize) })
              : rich(m.new_package_upload_size({ size: slot('size') }), { size: size(estimate.uploadSize) })}
          </p>
        ) : null}
      </div>
      {base.status === 'failed' ? (
        <p className="notice new_package_problem" role="alert">
          {m.new_package_base_failed()}{' '}
          <button type="button" className="button button_quiet" onClick={base.retry}>
            {m.dialog_retry()}
          </button>
        </p>
      ) : null}
      {index.status === 'failed' ? (
        <p className="notice new_package_problem" role="alert">
          {rich(m.new_package_read_failed({ path: slot('path') }), { path: <bdi dir="ltr">{index.path ?? ''}</bdi> })}
        </p>
      ) : null}
      {isTooLarge(estimate, maxSize) ? (
        <p className="notice new_package_problem" role="alert" data-testid="new-package-too-large">
          {rich(m.new_package_too_large({ size: slot('size'), limit: slot('limit') }), { size: size(estimate!.uploadSize), limit: size(maxSize!) })}
        </p>
      ) : null}
    </div>
  );
}
