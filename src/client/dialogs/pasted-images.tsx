import { useCallback, useLayoutEffect, useMemo, useRef, useState, type ClipboardEvent, type DragEvent, type RefObject, type SyntheticEvent } from 'react';
import { markdown_image_converting } from '../../shared/i18n/paraglide/messages/markdown_image_converting.js';
import { markdown_image_dismiss } from '../../shared/i18n/paraglide/messages/markdown_image_dismiss.js';
import { markdown_image_failed } from '../../shared/i18n/paraglide/messages/markdown_image_failed.js';
import { markdown_image_retrying } from '../../shared/i18n/paraglide/messages/markdown_image_retrying.js';
import { markdown_image_too_large } from '../../shared/i18n/paraglide/messages/markdown_image_too_large.js';
import { markdown_image_unreadable } from '../../shared/i18n/paraglide/messages/markdown_image_unreadable.js';
import { markdown_image_uploading } from '../../shared/i18n/paraglide/messages/markdown_image_uploading.js';
import { markdown_images_label } from '../../shared/i18n/paraglide/messages/markdown_images_label.js';
import type { MarkdownImage } from '../components/markdown-view.tsx';
import { altTextOf, ContentImageError, imageFiles, prepareContentImage, uploadContentImage } from '../lib/content-images.ts';
import { errorText, toDisplayError } from '../lib/errors.ts';
import { useUploadScope } from '../lib/upload-scope.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  markdown_image_converting,
  markdown_image_dismiss,
  markdown_image_failed,
  markdown_image_retrying,
  markdown_image_too_large,
  markdown_image_unreadable,
  markdown_image_uploading,
  markdown_images_label,
};

type PastedImageStatus = 'converting' | 'uploading' | 'retrying' | 'failed';

/** One pasted image on its way (a finished one leaves the list; a failed one stays until dismissed). */
type PastedImage = { key: string; name: string; preview: string; status: PastedImageStatus; failure?: string };

/** The text and its selection, as the textarea holds them. */
type TextState = { text: string; start: number; end: number };

/**
 * Every `from` in the text replaced by `to`, the selection moved with the text around it (an edit made
 * while an image uploads stays where it was typed).
 */
function replaceKeepingSelection(state: TextState, from: string, to: string): TextState {
  if (!from) return state;
  const shift = (position: number) => {
    let moved = position;
    for (let at = state.text.indexOf(from); at >= 0 && at < position; at = state.text.indexOf(from, at + from.length)) {
      moved += to.length - Math.min(from.length, position - at);
    }
    return moved;
  };
  return { text: state.text.split(from).join(to), start: shift(state.start), end: shift(state.end) };
}

/** The temporary reference of `preview` (`![alt](blob:…)`) taken out of the text: its upload failed. */
function withoutReference(state: TextState, preview: string): TextState {
  const pattern = new RegExp(`!\\[(?:[^\\]\\\\]|\\\\.)*\\]\\(${preview.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`);
  const match = pattern.exec(state.text);
  if (!match) return state;
  return replaceKeepingSelection(state, match[0], '');
}

/** Why an image could not be added, in words (also the overview's cover and screenshots). */
export function imageFailureText(error: unknown): string {
  if (error instanceof ContentImageError) return error.reason === 'too_large' ? m.markdown_image_too_large() : m.markdown_image_unreadable();
  return errorText(toDisplayError(error));
}

type PastedImagesOptions = {
  /** Spec §5: only content of a project takes images (none: paste and drop stay the browser's). */
  projectId: string | undefined;
  /** The images the content already has. */
  initial: readonly MarkdownImage[];
  /** The textarea's text and selection now. */
  read: () => TextState;
  /** Puts text and selection into the textarea. */
  write: (state: TextState) => void;
};

export type PastedImages = {
  /** Uploads under way and failures not dismissed yet. */
  pending: readonly PastedImage[];
  /** Whether any upload is still under way (the text holds temporary references). */
  busy: boolean;
  /** The content's images: those it had and those uploaded since (saving keeps the ones it references). */
  images: readonly MarkdownImage[];
  /** Object URLs of the temporary previews, which the preview may show. */
  localImages: ReadonlySet<string>;
  onPaste: (event: ClipboardEvent<HTMLTextAreaElement>) => void;
  onDragOver: (event: DragEvent<HTMLTextAreaElement>) => void;
  onDrop: (event: DragEvent<HTMLTextAreaElement>) => void;
  dismiss: (key: string) => void;
};

let counter = 0;

/**
 * Spec §4 image paste flow in the markdown editor: pasted or dropped image files get a temporary
 * reference at the cursor at once (an object URL the preview shows), are converted to JPEG, created,
 * uploaded (part 0, 3 tries 5 s apart: 'failed, retrying' meanwhile) and finalized; then the reference
 * points at the image's address and the image joins the content's list. A failure says why and takes
 * its reference out, leaving the text as it was otherwise. Closing the dialog stops what still runs.
 */
function usePastedImages({ projectId, initial, read, write }: PastedImagesOptions): PastedImages {
  const [pending, setPending] = useState<PastedImage[]>([]);
  const [images, setImages] = useState<readonly MarkdownImage[]>(initial);
  const { controller, previews } = useUploadScope();
  const io = useRef({ read, write });
  io.current = { read, write };


  const update = useCallback((key: string, change: Partial<PastedImage> | null) => {
    setPending((list) => (change === null ? list.filter((item) => item.key !== key) : list.map((item) => (item.key === key ? { ...item, ...change } : item))));
  }, []);

  const send = useCallback(
    async (project: string, item: PastedImage, file: File, signal: AbortSignal) => {
      try {
        const prepared = await prepareContentImage(file);
        signal.throwIfAborted();
        update(item.key, { status: 'uploading' });
        const image = await uploadContentImage(project, prepared, {
          signal,
          onRetry: () => update(item.key, { status: 'retrying' }),
          onTry: () => update(item.key, { status: 'uploading' }),
        });
        if (signal.aborted) return;
        io.current.write(replaceKeepingSelection(io.current.read(), item.preview, image.url));
        setImages((list) => [...list.filter((listed) => listed.id !== image.id), { id: image.id, width: image.width, height: image.height, scale: image.scale, url: image.url }]);
        update(item.key, null);
      } catch (error) {
        if (signal.aborted) return;
        io.current.write(withoutReference(io.current.read(), item.preview));
        update(item.key, { status: 'failed', failure: imageFailureText(error) });
      }
      previews.current.delete(item.preview);
      URL.revokeObjectURL(item.preview);
    },
    [update],
  );

  /** True when the files were taken (the caller prevents the browser's own handling). */
  const take = useCallback(
    (files: FileList | null | undefined): boolean => {
      const signal = controller.current?.signal;
      if (!projectId || !signal) return false;
      const found = imageFiles(files);
      if (found.length === 0) return false;
      const items = found.map((file) => {
        const preview = URL.createObjectURL(file);
        previews.current.add(preview);
        return { file, item: { key: `pasted-${++counter}`, name: file.name || 'image', preview, status: 'converting' as const } satisfies PastedImage };
      });
      const now = io.current.read();
      const before = now.text.slice(0, now.start);
      const after = now.text.slice(now.end);
      // Each image its own paragraph; blank lines only where the text around needs them.
      const lead = before === '' || before.endsWith('\n\n') ? '' : before.endsWith('\n') ? '\n' : '\n\n';
      const trail = after === '' || after.startsWith('\n\n') ? '' : after.startsWith('\n') ? '\n' : '\n\n';
      const inserted = lead + items.map(({ file, item }) => `![${altTextOf(file.name) || 'image'}](${item.preview})`).join('\n\n') + trail;
      const caret = before.length + inserted.length - trail.length;
      io.current.write({ text: before + inserted + after, start: caret, end: caret });
      setPending((list) => [...list, ...items.map(({ item }) => item)]);
      for (const { file, item } of items) void send(projectId, item, file, signal);
      return true;
    },
    [projectId, send],
  );

  const onPaste = useCallback(
    (event: ClipboardEvent<HTMLTextAreaElement>) => {
      // Spec §5: handled only with a project id and a file on the clipboard; text pastes as always.
      if (take(event.clipboardData?.files)) event.preventDefault();
    },
    [take],
  );
  const onDragOver = useCallback(
    (event: DragEvent<HTMLTextAreaElement>) => {
      if (projectId && Array.from(event.dataTransfer?.types ?? []).includes('Files')) {
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
      }
    },
    [projectId],
  );
  const onDrop = useCallback(
    (event: DragEvent<HTMLTextAreaElement>) => {
      if (take(event.dataTransfer?.files)) event.preventDefault();
    },
    [take],
  );

  const localImages = useMemo(() => new Set(pending.filter((item) => item.status !== 'failed').map((item) => item.preview)), [pending]);
  return {
    pending,
    busy: pending.some((item) => item.status !== 'failed'),
    images,
    localImages,
    onPaste,
    onDragOver,
    onDrop,
    dismiss: (key) => update(key, null),
  };
}

export type ImageTextarea = PastedImages & {
  /** Spread on the textarea (with its own value and onChange). */
  textarea: {
    ref: RefObject<HTMLTextAreaElement | null>;
    onSelect: (event: SyntheticEvent<HTMLTextAreaElement>) => void;
    onPaste: PastedImages['onPaste'];
    onDragOver: PastedImages['onDragOver'];
    onDrop: PastedImages['onDrop'];
  };
  /** Call from the textarea's onChange: the text and selection the user made. */
  track: (event: SyntheticEvent<HTMLTextAreaElement>) => void;
};

/**
 * usePastedImages bound to a controlled textarea: its text and selection are followed between renders,
 * and the selection is put back after an upload changed the text (a reference inserted or replaced).
 */
export function useImageTextarea(options: { projectId: string | undefined; initial: readonly MarkdownImage[]; text: string; setText: (text: string) => void }): ImageTextarea {
  const ref = useRef<HTMLTextAreaElement>(null);
  const current = useRef<TextState>({ text: options.text, start: options.text.length, end: options.text.length });
  const selectionToApply = useRef<{ start: number; end: number } | null>(null);
  const setText = useRef(options.setText);
  setText.current = options.setText;
  const pasted = usePastedImages({
    projectId: options.projectId,
    initial: options.initial,
    read: () => current.current,
    write: (state) => {
      current.current = state;
      if (document.activeElement === ref.current) selectionToApply.current = { start: state.start, end: state.end };
      setText.current(state.text);
    },
  });
  useLayoutEffect(() => {
    const element = ref.current;
    const selection = selectionToApply.current;
    if (!element || !selection) return;
    selectionToApply.current = null;
    element.setSelectionRange(selection.start, selection.end);
  }, [options.text]);
  const track = useCallback((event: SyntheticEvent<HTMLTextAreaElement>) => {
    const element = event.currentTarget;
    current.current = { text: element.value, start: element.selectionStart, end: element.selectionEnd };
  }, []);
  return { ...pasted, track, textarea: { ref, onSelect: track, onPaste: pasted.onPaste, onDragOver: pasted.onDragOver, onDrop: pasted.onDrop } };
}

function statusText(item: PastedImage): string {
  switch (item.status) {
    case 'converting':
      return m.markdown_image_converting({ name: item.name });
    case 'uploading':
      return m.markdown_image_uploading({ name: item.name });
    case 'retrying':
      return m.markdown_image_retrying({ name: item.name });
    default:
      return m.markdown_image_failed({ name: item.name, reason: item.failure ?? '' });
  }
}

/** The pasted images' states under the text: live, so a screen reader hears uploads finish or fail. */
export function PastedImageList({ pending, dismiss }: Pick<PastedImages, 'pending' | 'dismiss'>) {
  return (
    <ul className="pasted_images" aria-label={m.markdown_images_label()} aria-live="polite">
      {pending.map((item) => (
        <li key={item.key} className="pasted_image" data-status={item.status}>
          <span className="pasted_image_text">{statusText(item)}</span>
          {item.status === 'failed' ? (
            <button type="button" className="button button_small" onClick={() => dismiss(item.key)}>
              {m.markdown_image_dismiss()}
            </button>
          ) : item.status !== 'retrying' ? (
            <progress className="pasted_image_progress" aria-label={statusText(item)} />
          ) : null}
        </li>
      ))}
    </ul>
  );
}
