import { useCallback, useRef, useState, type RefObject } from 'react';
import { trpc } from '../../../../lib/trpc.ts';
import type { ProjectMedia } from '../../../../../shared/schemas/project-media.ts';
import { draftOf, sameSaved, toPutInput, type MediaDraft } from './media-draft.ts';

export type SaveState = { status: 'idle' | 'saving' | 'saved' } | { status: 'failed'; error: unknown };

/** One edit of the draft, with the words said for it (moved, removed...). */
export type MediaChange = (edit: (draft: MediaDraft) => MediaDraft, said?: string) => void;

/**
 * The media editor's draft and its saving: every change that alters what the server keeps is saved at
 * once with PUT .../media, one save at a time, and a change made while a save runs is saved right after
 * it. `current` is the draft as of the last change (read by callbacks between renders).
 */
export function useMediaSave(projectId: string, initial: ProjectMedia, controller: RefObject<AbortController | null>) {
  const utils = trpc.useUtils();
  const put = trpc.projects.media.put.useMutation();
  const [draft, setDraftState] = useState<MediaDraft>(() => draftOf(initial));
  const current = useRef(draft);
  const [announcement, setAnnouncement] = useState('');
  const [save, setSave] = useState<SaveState>({ status: 'idle' });
  const saving = useRef<{ running: boolean; again: boolean }>({ running: false, again: false });

  /** Saves what the draft holds now; a change made while a save runs is saved right after it. */
  const runSave = useCallback(async () => {
    if (saving.current.running) {
      saving.current.again = true;
      return;
    }
    saving.current.running = true;
    setSave({ status: 'saving' });
    try {
      do {
        saving.current.again = false;
        const saved = await put.mutateAsync({ project: projectId, ...toPutInput(current.current) });
        utils.projects.media.get.setData({ project: projectId }, saved);
      } while (saving.current.again);
      setSave({ status: 'saved' });
      // The store page shows the new pictures on its next visit.
      void utils.store.project.invalidate({ project: projectId });
    } catch (error) {
      if (!controller.current?.signal.aborted) setSave({ status: 'failed', error });
    } finally {
      saving.current.running = false;
    }
  }, [put, projectId, utils]);

  const change: MediaChange = useCallback(
    (edit, said) => {
      const before = current.current;
      const after = edit(before);
      if (after === before) return;
      current.current = after;
      setDraftState(after);
      if (said) setAnnouncement(said);
      if (!sameSaved(before, after)) void runSave();
    },
    [runSave],
  );

  return { draft, current, change, announcement, save, runSave };
}
