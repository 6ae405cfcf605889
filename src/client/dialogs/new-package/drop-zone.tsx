import { useCallback, useRef } from 'react';
import { new_package_add_files } from '../../../shared/i18n/paraglide/messages/new_package_add_files.js';
import { new_package_add_folder } from '../../../shared/i18n/paraglide/messages/new_package_add_folder.js';
import { canPickDirectory, collectDropped, pickDirectory, readDropped, readInputFiles, type PickedEntry } from './read-dropped.ts';
import { sniffSources } from './file-modes.ts';
import { addPicked, type TreeState } from './tree-state.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { new_package_add_files, new_package_add_folder };

/**
 * Adds picked entries under a folder of the tree ([] is the top level), then reads their first bytes
 * (the dialog marks programs executable by them: file-modes.ts) and renders again once all are read.
 */
function useAddPicked({ edit, refresh }: Pick<TreeState, 'edit' | 'refresh'>) {
  return useCallback(
    (directory: string[], picked: PickedEntry[]) => {
      edit((tree) => addPicked(tree, directory, picked));
      const files = picked.flatMap((entry) => (entry.file ? [entry.file] : []));
      void sniffSources(files).then(() => refresh());
    },
    [edit, refresh],
  );
}

/**
 * Files dropped from outside: the entries are taken during the event (the browser empties the
 * DataTransfer afterwards), folders are then walked and everything added to `directory`.
 */
export function useDropFiles({ edit, refresh }: Pick<TreeState, 'edit' | 'refresh'>) {
  const add = useAddPicked({ edit, refresh });
  return useCallback(
    (directory: string[], dataTransfer: DataTransfer) => {
      const dropped = collectDropped(dataTransfer);
      readDropped(dropped).then(
        (picked) => add(directory, picked),
        (error: unknown) =>
          edit(() => {
            throw error;
          }),
      );
    },
    [add, edit],
  );
}

/** 'Add files' and 'Add folder': the system pickers, adding at the top level. */
export function FilePickButtons({ state }: { state: Pick<TreeState, 'edit' | 'refresh'> }) {
  const add = useAddPicked(state);
  const filesRef = useRef<HTMLInputElement>(null);
  const folderRef = useRef<HTMLInputElement>(null);
  const pickFolder = () => {
    if (!canPickDirectory()) {
      folderRef.current?.click();
      return;
    }
    pickDirectory().then(
      (picked) => {
        if (picked) add([], picked);
      },
      // A picker the page may not use (inside a frame, by policy): the plain input still works.
      () => folderRef.current?.click(),
    );
  };
  const onInput = (input: HTMLInputElement) => {
    if (input.files && input.files.length > 0) add([], readInputFiles(input.files));
    input.value = '';
  };
  return (
    <div className="new_package_pick">
      <button type="button" className="button" onClick={() => filesRef.current?.click()}>
        {m.new_package_add_files()}
      </button>
      <button type="button" className="button" onClick={pickFolder}>
        {m.new_package_add_folder()}
      </button>
      <input ref={filesRef} type="file" multiple hidden tabIndex={-1} aria-hidden="true" data-testid="new-package-files-input" onChange={(event) => onInput(event.currentTarget)} />
      <input
        ref={folderRef}
        type="file"
        multiple
        hidden
        tabIndex={-1}
        aria-hidden="true"
        data-testid="new-package-folder-input"
        {...{ webkitdirectory: '' }}
        onChange={(event) => onInput(event.currentTarget)}
      />
    </div>
  );
}
