import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { add_existing_button } from '../../../shared/i18n/paraglide/messages/add_existing_button.js';
import { upload_list_label } from '../../../shared/i18n/paraglide/messages/upload_list_label.js';
import { upload_new_package } from '../../../shared/i18n/paraglide/messages/upload_new_package.js';
import { upload_packages_empty } from '../../../shared/i18n/paraglide/messages/upload_packages_empty.js';
import { upload_remove } from '../../../shared/i18n/paraglide/messages/upload_remove.js';
import { PackageDetails, StartFileFact } from '../../components/package-facts.tsx';
import { EmptyState } from '../../components/states.tsx';
import { AddExistingPackageDialog } from '../add-existing-package-dialog.tsx';
import { useDialogs } from '../dialog-provider.tsx';
import type { BaseCandidate } from '../new-package/base-choice.ts';
import { openNewPackageDialog } from '../new-package/new-package-dialog.tsx';
import { packageTitle } from '../../../shared/packages/package-name.ts';
import type { ProjectPackage } from '../../../shared/schemas/packages.ts';
import { isFinished, type PackageUploadState } from '../../../shared/upload/statuses.ts';
import { getUploadClient } from '../../upload/upload-client.ts';
import { UploadStatusLine } from './upload-status-line.tsx';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { add_existing_button, upload_list_label, upload_new_package, upload_packages_empty, upload_remove };

/** `existing`: the package as the project's list gave it; `startFile`: a new package's, from its draft. */
type Item = { key: string; title: string; state: PackageUploadState; existing?: ProjectPackage; startFile?: string[] | null };

export type VersionUploadListOptions = {
  projectId: string;
  maxSize: number | null;
  /**
   * The ready packages of the branch's current version: a new package updates the one with its tags
   * (the dialog offers their tags; it ticks none by itself).
   */
  currentPackages?: readonly BaseCandidate[];
  /** Asked before a new package is prepared and uploaded: false stops it (the version's title is refused). */
  beforeUpload?: () => boolean;
};

const existingState = (id: string): PackageUploadState => ({ status: 'existing', progress: 1, size: null, sentBytes: 0, patchSize: null, parts: [], packageId: id, error: null });
let keys = 0;

/**
 * The packages part of the new version dialog: new packages (uploads start at once, several at a
 * time) and existing ones. Reports the package ids, and whether any upload is still running (spec §4:
 * the version waits until every package is existing or done).
 */
export function VersionUploadList(props: VersionUploadListOptions & { onChange: (packages: string[], pending: boolean) => void }) {
  const dialogs = useDialogs();
  const [items, setItems] = useState<Item[]>([]);
  const engine = useSyncExternalStore(getUploadClient().onMode, getUploadClient().mode);
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;
  // The uploads of the new packages still listed, by item key (null while the upload starts).
  const uploads = useRef(new Map<string, string | null>());

  // Closing the dialog without creating the version cancels what still runs (the client leaves
  // finished uploads alone: a version is created only once every upload is done).
  useEffect(() => {
    const listed = uploads.current;
    return () => {
      for (const id of listed.values()) if (id) getUploadClient().cancel(id);
      listed.clear();
    };
  }, []);

  useEffect(() => {
    const ids = items.flatMap((item) => (item.state.status === 'existing' || item.state.status === 'done') && item.state.packageId ? [item.state.packageId] : []);
    onChange.current(ids, items.some((item) => !isFinished(item.state.status) || item.state.status === 'errored'));
  }, [items]);

  const patch = (key: string, change: Partial<Item>) => setItems((current) => current.map((item) => (item.key === key ? { ...item, ...change } : item)));

  const addNew = async () => {
    if (props.beforeUpload && !props.beforeUpload()) return;
    const draft = await openNewPackageDialog(dialogs, {
      projectId: props.projectId,
      maxSize: props.maxSize,
      basePackages: props.currentPackages,
    });
    if (!draft) return;
    const key = `new-${++keys}`;
    // The name the package will have once uploaded (the same rule as every page), never raw tags.
    const title = packageTitle(draft);
    setItems((current) => [...current, { key, title, startFile: draft.tree.entrypoint ?? null, state: { ...existingState(''), status: 'queued', progress: 0, packageId: null } }]);
    uploads.current.set(key, null);
    const uploadId = await getUploadClient().start(props.projectId, draft, (state) => patch(key, { state }));
    // Removed (or the dialog closed) while it started: stop it at once.
    if (!uploads.current.has(key)) return getUploadClient().cancel(uploadId);
    uploads.current.set(key, uploadId);
  };

  const addExisting = async () => {
    const exclude = items.flatMap((item) => (item.state.packageId ? [item.state.packageId] : []));
    const chosen = await dialogs.open<ProjectPackage[] | null>((close) => <AddExistingPackageDialog projectId={props.projectId} exclude={exclude} onClose={close} />);
    if (!chosen) return;
    setItems((current) => [...current, ...chosen.map((item) => ({ key: `existing-${item.id}`, title: item.title, existing: item, state: existingState(item.id) }))]);
  };

  const remove = (item: Item) => {
    const uploadId = uploads.current.get(item.key);
    uploads.current.delete(item.key);
    // A running upload is cancelled (its record deleted); a done package stays, it may be in use.
    if (uploadId && !isFinished(item.state.status)) getUploadClient().cancel(uploadId);
    setItems((current) => current.filter((other) => other.key !== item.key));
  };

  return (
    // data-upload-worker: where uploads run ('on' in the worker), for tests and bug reports.
    <div className="upload_packages" data-upload-worker={engine === null ? undefined : engine === 'worker' ? 'on' : engine}>
      {items.length === 0 ? (
        <EmptyState icon="packages" compact>
          {m.upload_packages_empty()}
        </EmptyState>
      ) : null}
      {items.length > 0 ? (
        <ul className="item_list upload_list" aria-label={m.upload_list_label()}>
          {items.map((item) => (
            <li key={item.key} className="item upload_item" data-status={item.state.status}>
              <bdi className="upload_title">{item.title}</bdi>
              <UploadStatusLine state={item.state} />
              {item.existing ? <PackageDetails pkg={item.existing} facts={['versions', 'uploaded', 'size', 'start-file']} className="upload_details" /> : null}
              {item.startFile !== undefined ? (
                <span className="package_details upload_details">
                  <StartFileFact entrypoint={item.startFile} />
                </span>
              ) : null}
              <button type="button" className="button button_quiet" onClick={() => remove(item)}>
                {m.upload_remove()}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="actions">
        <button type="button" className="button" onClick={() => void addNew()}>
          {m.upload_new_package()}
        </button>
        <button type="button" className="button" onClick={() => void addExisting()}>
          {m.add_existing_button()}
        </button>
      </div>
    </div>
  );
}
