import { useCallback, useState, type RefObject } from 'react';
import { markdown_image_failed } from '../../../../../shared/i18n/paraglide/messages/markdown_image_failed.js';
import { markdown_image_unreadable } from '../../../../../shared/i18n/paraglide/messages/markdown_image_unreadable.js';
import { project_media_too_many } from '../../../../../shared/i18n/paraglide/messages/project_media_too_many.js';
import { imageFailureText } from '../../../../dialogs/pasted-images.tsx';
import { imageFiles, prepareContentImage, uploadContentImage } from '../../../../lib/content-images.ts';
import type { useUploadScope } from '../../../../lib/upload-scope.ts';
import { maxScreenshots } from '../../../../../shared/schemas/project-media.ts';
import { newSlotKey, updateSlot, type MediaDraft, type MediaImage, type Slot, type SlotUpload } from './media-draft.ts';
import type { MediaChange } from './use-media-save.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { markdown_image_failed, markdown_image_unreadable, project_media_too_many };

/** A file that did not go up, said in words until dismissed. */
export type Failure = { key: string; text: string };

/**
 * The media editor's uploads: picked or dropped files become slots at once (a preview, then the
 * upload's status) and go up through the paste flow's code (lib/content-images.ts); a finalized image
 * takes its slot's place, a failure gives it back and is listed. Files that are no image, and
 * screenshots beyond maxScreenshots, are refused with a reason.
 */
export function useMediaUploads(projectId: string, current: RefObject<MediaDraft>, change: MediaChange, scope: ReturnType<typeof useUploadScope>) {
  const { controller, previews } = scope;
  const [failures, setFailures] = useState<Failure[]>([]);

  const send = useCallback(
    async (key: string, file: File, preview: string, restore: Slot | null | undefined) => {
      const signal = controller.current?.signal;
      if (!signal) return;
      const name = file.name || 'image';
      const status = (next: SlotUpload['status']) => change((draft) => updateSlot(draft, key, { upload: { name, preview, status: next } }));
      try {
        const prepared = await prepareContentImage(file);
        signal.throwIfAborted();
        status('uploading');
        const image = await uploadContentImage(projectId, prepared, { signal, onRetry: () => status('retrying'), onTry: () => status('uploading') });
        if (signal.aborted) return;
        const done: MediaImage = { id: image.id, url: image.url, width: image.width, height: image.height, scale: image.scale };
        change((draft) => updateSlot(draft, key, { image: done, upload: undefined }));
      } catch (error) {
        if (signal.aborted) return;
        // A failed cover gives its place back to the one before it; a failed screenshot leaves the list.
        change((draft) => (restore !== undefined && draft.cover?.key === key ? { ...draft, cover: restore } : updateSlot(draft, key, null)));
        setFailures((list) => [...list, { key, text: m.markdown_image_failed({ name, reason: imageFailureText(error) }) }]);
      } finally {
        previews.current.delete(preview);
        URL.revokeObjectURL(preview);
      }
    },
    [change, projectId],
  );

  /** Starts uploads of the image files among `files`; says which were not taken and why. */
  const take = (files: FileList | readonly File[] | null | undefined, role: 'cover' | 'screenshot') => {
    const all = Array.from(files ?? []);
    const images = imageFiles(all);
    const refused = all.filter((file) => !images.includes(file));
    const notes: Failure[] = refused.map((file) => ({ key: newSlotKey(), text: m.markdown_image_failed({ name: file.name || 'file', reason: m.markdown_image_unreadable() }) }));
    let chosen = images;
    if (role === 'cover') chosen = images.slice(0, 1);
    else {
      const room = Math.max(0, maxScreenshots - current.current.screenshots.length);
      if (images.length > room) notes.push({ key: newSlotKey(), text: m.project_media_too_many({ max: String(maxScreenshots) }) });
      chosen = images.slice(0, room);
    }
    if (notes.length > 0) setFailures((list) => [...list, ...notes]);
    for (const file of chosen) {
      const key = newSlotKey();
      const preview = URL.createObjectURL(file);
      previews.current.add(preview);
      const upload: SlotUpload = { name: file.name || 'image', preview, status: 'converting' };
      if (role === 'cover') {
        const restore = current.current.cover;
        change((draft) => ({ ...draft, cover: { key, upload } }));
        void send(key, file, preview, restore);
      } else {
        change((draft) => ({ ...draft, screenshots: [...draft.screenshots, { key, upload }] }));
        void send(key, file, preview, undefined);
      }
    }
  };

  const dismiss = (key: string) => setFailures((list) => list.filter((item) => item.key !== key));

  return { failures, dismiss, take };
}
