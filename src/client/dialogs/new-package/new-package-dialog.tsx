import { useId, useLayoutEffect, useMemo, useState, type FormEvent } from 'react';
import { applyFix, checkPackage, type PackageFix } from '../../../shared/packages/checks.ts';
import { defaultPackageTitle } from '../../../shared/packages/default-title.ts';
import { sortTags } from '../../../shared/packages/tags.ts';
import { FormField } from '../../components/form-field.tsx';
import { TagPicker } from '../../components/tag-picker.tsx';
import { new_package_create } from '../../../shared/i18n/paraglide/messages/new_package_create.js';
import { new_package_drop_hint } from '../../../shared/i18n/paraglide/messages/new_package_drop_hint.js';
import { new_package_files_heading } from '../../../shared/i18n/paraglide/messages/new_package_files_heading.js';
import { new_package_tags_heading } from '../../../shared/i18n/paraglide/messages/new_package_tags_heading.js';
import { new_package_title } from '../../../shared/i18n/paraglide/messages/new_package_title.js';
import { new_package_title_hint } from '../../../shared/i18n/paraglide/messages/new_package_title_hint.js';
import { new_package_title_label } from '../../../shared/i18n/paraglide/messages/new_package_title_label.js';
import type { PackageDraft } from '../../upload/package-draft.ts';
import type { Dialogs } from '../dialog-api.tsx';
import { Modal } from '../modal.tsx';
import { DialogFooter } from '../dialog-footer.tsx';
import { chooseBase, type BaseCandidate } from './base-choice.ts';
import { BaseNotice } from './base-notice.tsx';
import { useBaseStartFile } from './base-start-file.ts';
import { ChecksList } from './checks-list.tsx';
import { FilePickButtons, useDropFiles } from './drop-zone.tsx';
import { chooseMode, hasUnsniffed, programsOf, syncModes } from './file-modes.ts';
import { FileTreeEditor } from './file-tree-editor.tsx';
import { countFiles, estimateUpload } from './package-index.ts';
import { isTooLarge, SizeSummary } from './size-summary.tsx';
import { useTreeState } from './tree-state.ts';
import { TagsFrom } from './tags-from.tsx';
import { useBaseIndex, usePackageIndex } from './use-package-index.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  new_package_create,
  new_package_drop_hint,
  new_package_files_heading,
  new_package_tags_heading,
  new_package_title,
  new_package_title_hint,
  new_package_title_label,
};

export type NewPackageDialogOptions = {
  projectId: string;
  /** The project's packageSize quota in bytes (projects.quotas); null: no limit. */
  maxSize: number | null;
  /**
   * The ready packages of the branch's current version: the one whose tags equal the selected tags is
   * the base (only the chunks it lacks are uploaded); with none, a full upload.
   */
  basePackages?: readonly BaseCandidate[];
  /** None by default: the dialog offers the tags of each of basePackages instead of ticking any in silence. */
  initialTags?: string[];
};

/** Opens the new package dialog; resolves with the draft on Create, null on Cancel. */
export function openNewPackageDialog(dialogs: Dialogs, options: NewPackageDialogOptions): Promise<PackageDraft | null> {
  return dialogs.open<PackageDraft | null>((close) => <NewPackageDialog {...options} onClose={close} />);
}

const NO_CANDIDATES: readonly BaseCandidate[] = [];

/** Same limit as the server's package title schema. */
const TITLE_MAX_LENGTH = 128;

/**
 * Spec §2 'new package' dialog: tags, optional title, the files (picked or dropped) in a tree editor,
 * the package checks with their fixes, and the sizes. Create needs files and a finished index, and
 * refuses an upload above the project's packageSize quota before anything is sent.
 */
function NewPackageDialog({ projectId, maxSize, basePackages = NO_CANDIDATES, initialTags, onClose }: NewPackageDialogOptions & { onClose: (draft: PackageDraft | null) => void }) {
  const tagsHeadingId = useId();
  const filesHeadingId = useId();
  const [tags, setTags] = useState<string[]>(() => sortTags(initialTags ?? []));
  const [title, setTitle] = useState('');
  const treeState = useTreeState();
  const { tree, revision, problem, edit, refresh } = treeState;
  const basePackage = useMemo(() => chooseBase(basePackages, tags), [basePackages, tags]);
  const base = useBaseIndex(projectId, basePackage?.id ?? null);
  const index = usePackageIndex(tree, revision);
  const dropFiles = useDropFiles(treeState);
  const baseIndex = base.status === 'ready' ? base.index : null;
  const baseRoot = baseIndex?.root ?? null;

  // Programs found by their heads get their bit, and on an update files get their base's (file-modes.ts),
  // before the browser paints: Create never sees a tree whose bits are about to change.
  useLayoutEffect(() => {
    if (syncModes(tree, baseRoot, false)) refresh((target) => void syncModes(target, baseRoot, true));
  }, [tree, revision, baseRoot, refresh]);

  useBaseStartFile(tree, revision, basePackage, refresh);

  // The tree is edited in place: `revision` is what changes.
  const programs = useMemo(() => programsOf(tree), [tree, revision]);
  const warnings = useMemo(() => checkPackage({ tree, tags, programs }), [tree, revision, tags, programs]);
  const reading = useMemo(() => hasUnsniffed(tree), [tree, revision]);
  const files = useMemo(() => countFiles(tree), [tree, revision]);
  const readyIndex = index.status === 'ready' ? index.index : null;
  const estimate = useMemo(() => (readyIndex ? estimateUpload(readyIndex, baseIndex) : null), [readyIndex, baseIndex]);
  const tooLarge = isTooLarge(estimate, maxSize);
  // A native start file without its bit would be published unable to run: its check's fix comes first.
  const blocked = warnings.some((warning) => warning.blocksCreate);
  // While the base loads the upload's size is unknown; without it (failed) the full size is the bound.
  const canCreate = files.count > 0 && readyIndex !== null && !reading && base.status !== 'loading' && !tooLarge && !blocked;

  const fix = (chosen: PackageFix) => {
    if (chosen.kind === 'add_tags') setTags(applyFix(tree, tags, chosen).tags);
    else
      edit((target) => {
        applyFix(target, tags, chosen);
        if (chosen.kind === 'set_executable') chooseMode(target, chosen.path);
      });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!canCreate || syncModes(tree, baseRoot, false)) return;
    const trimmed = title.trim();
    onClose({ tree, tags: sortTags(tags), title: trimmed === '' ? null : trimmed, basePackage: basePackage?.id ?? null });
  };

  return (
    <Modal title={m.new_package_title()} onCancel={() => onClose(null)} className="new_package_dialog">
      <form
        className="dialog_form new_package_form"
        onSubmit={submit}
        noValidate
        // Files dropped anywhere else in the dialog go to the top level (the browser would open them otherwise).
        onDragOver={(event) => {
          if (Array.from(event.dataTransfer.types).includes('Files')) event.preventDefault();
        }}
        onDrop={(event) => {
          if (!Array.from(event.dataTransfer.types).includes('Files')) return;
          event.preventDefault();
          dropFiles([], event.dataTransfer);
        }}
      >
        <section className="new_package_section" aria-labelledby={tagsHeadingId}>
          <h3 id={tagsHeadingId} className="new_package_heading">
            {m.new_package_tags_heading()}
          </h3>
          <TagsFrom candidates={basePackages} tags={tags} onChange={setTags} />
          <TagPicker value={tags} onChange={setTags} />
          <BaseNotice candidates={basePackages} base={basePackage} />
        </section>
        <FormField label={m.new_package_title_label()} hint={m.new_package_title_hint()} limit={{ length: title.length, max: TITLE_MAX_LENGTH }}>
          {(control) => (
            <input {...control} className="input" value={title} maxLength={TITLE_MAX_LENGTH} placeholder={defaultPackageTitle(tags)} onChange={(event) => setTitle(event.currentTarget.value)} />
          )}
        </FormField>
        <section className="new_package_section" aria-labelledby={filesHeadingId}>
          <div className="new_package_files_header">
            <h3 id={filesHeadingId} className="new_package_heading">
              {m.new_package_files_heading()}
            </h3>
            <FilePickButtons state={treeState} />
          </div>
          <FileTreeEditor state={treeState} onDropFiles={dropFiles} hint={<p className="file_tree_hint">{m.new_package_drop_hint()}</p>} />
          {problem ? (
            <p className="field_problem" role="alert" data-testid="new-package-edit-problem">
              {problem}
            </p>
          ) : null}
          <SizeSummary files={files} index={index} base={base} estimate={estimate} maxSize={maxSize} />
        </section>
        <ChecksList warnings={warnings} onApply={fix} />
        <DialogFooter onCancel={() => onClose(null)} submit={{ label: m.new_package_create(), disabled: !canCreate }} />
      </form>
    </Modal>
  );
}
