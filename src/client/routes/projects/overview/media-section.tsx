import { useCallback, useId, useLayoutEffect, useRef, useState, type DragEvent, type ReactNode } from 'react';
import { markdown_image_converting } from '../../../../shared/i18n/paraglide/messages/markdown_image_converting.js';
import { markdown_image_dismiss } from '../../../../shared/i18n/paraglide/messages/markdown_image_dismiss.js';
import { markdown_image_failed } from '../../../../shared/i18n/paraglide/messages/markdown_image_failed.js';
import { markdown_image_retrying } from '../../../../shared/i18n/paraglide/messages/markdown_image_retrying.js';
import { markdown_image_unreadable } from '../../../../shared/i18n/paraglide/messages/markdown_image_unreadable.js';
import { markdown_image_uploading } from '../../../../shared/i18n/paraglide/messages/markdown_image_uploading.js';
import { project_media_cover } from '../../../../shared/i18n/paraglide/messages/project_media_cover.js';
import { project_media_cover_alt } from '../../../../shared/i18n/paraglide/messages/project_media_cover_alt.js';
import { project_media_cover_none } from '../../../../shared/i18n/paraglide/messages/project_media_cover_none.js';
import { project_media_cover_pick } from '../../../../shared/i18n/paraglide/messages/project_media_cover_pick.js';
import { project_media_cover_remove } from '../../../../shared/i18n/paraglide/messages/project_media_cover_remove.js';
import { project_media_cover_removed } from '../../../../shared/i18n/paraglide/messages/project_media_cover_removed.js';
import { project_media_cover_replace } from '../../../../shared/i18n/paraglide/messages/project_media_cover_replace.js';
import { project_media_cover_set } from '../../../../shared/i18n/paraglide/messages/project_media_cover_set.js';
import { project_media_drop_hint } from '../../../../shared/i18n/paraglide/messages/project_media_drop_hint.js';
import { project_media_failures_label } from '../../../../shared/i18n/paraglide/messages/project_media_failures_label.js';
import { project_media_full } from '../../../../shared/i18n/paraglide/messages/project_media_full.js';
import { project_media_heading } from '../../../../shared/i18n/paraglide/messages/project_media_heading.js';
import { project_media_intro } from '../../../../shared/i18n/paraglide/messages/project_media_intro.js';
import { project_media_move_earlier } from '../../../../shared/i18n/paraglide/messages/project_media_move_earlier.js';
import { project_media_move_later } from '../../../../shared/i18n/paraglide/messages/project_media_move_later.js';
import { project_media_moved } from '../../../../shared/i18n/paraglide/messages/project_media_moved.js';
import { project_media_remove } from '../../../../shared/i18n/paraglide/messages/project_media_remove.js';
import { project_media_removed } from '../../../../shared/i18n/paraglide/messages/project_media_removed.js';
import { project_media_save_failed } from '../../../../shared/i18n/paraglide/messages/project_media_save_failed.js';
import { project_media_saved } from '../../../../shared/i18n/paraglide/messages/project_media_saved.js';
import { project_media_saving } from '../../../../shared/i18n/paraglide/messages/project_media_saving.js';
import { project_media_screenshot_label } from '../../../../shared/i18n/paraglide/messages/project_media_screenshot_label.js';
import { project_media_screenshots } from '../../../../shared/i18n/paraglide/messages/project_media_screenshots.js';
import { project_media_screenshots_add } from '../../../../shared/i18n/paraglide/messages/project_media_screenshots_add.js';
import { project_media_screenshots_count } from '../../../../shared/i18n/paraglide/messages/project_media_screenshots_count.js';
import { project_media_screenshots_none } from '../../../../shared/i18n/paraglide/messages/project_media_screenshots_none.js';
import { project_media_too_many } from '../../../../shared/i18n/paraglide/messages/project_media_too_many.js';
import { project_media_use_as_cover } from '../../../../shared/i18n/paraglide/messages/project_media_use_as_cover.js';
import { state_retry } from '../../../../shared/i18n/paraglide/messages/state_retry.js';
import { ErrorState, LoadingState } from '../../../components/states.tsx';
import { imageFailureText } from '../../../dialogs/pasted-images.tsx';
import { imageSources } from '../../../lib/content-image-sources.ts';
import { imageFiles, prepareContentImage, uploadContentImage } from '../../../lib/content-images.ts';
import { errorText, toDisplayError } from '../../../lib/errors.ts';
import { trpc } from '../../../lib/trpc.ts';
import { maxScreenshots, type ProjectMedia } from '../../../../shared/schemas/project-media.ts';
import type { Project } from '../../../../shared/schemas/projects.ts';
import { can } from '../project-frame.tsx';
import { coverFromScreenshot, draftOf, moveScreenshot, newSlotKey, removeScreenshot, sameSaved, toPutInput, updateSlot, type MediaDraft, type MediaImage, type Slot, type SlotUpload } from './media-draft.ts';
import { useUploadScope } from '../../../lib/upload-scope.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = {
  markdown_image_converting,
  markdown_image_dismiss,
  markdown_image_failed,
  markdown_image_retrying,
  markdown_image_unreadable,
  markdown_image_uploading,
  project_media_cover,
  project_media_cover_alt,
  project_media_cover_none,
  project_media_cover_pick,
  project_media_cover_remove,
  project_media_cover_removed,
  project_media_cover_replace,
  project_media_cover_set,
  project_media_drop_hint,
  project_media_failures_label,
  project_media_full,
  project_media_heading,
  project_media_intro,
  project_media_move_earlier,
  project_media_move_later,
  project_media_moved,
  project_media_remove,
  project_media_removed,
  project_media_save_failed,
  project_media_saved,
  project_media_saving,
  project_media_screenshot_label,
  project_media_screenshots,
  project_media_screenshots_add,
  project_media_screenshots_count,
  project_media_screenshots_none,
  project_media_too_many,
  project_media_use_as_cover,
  state_retry,
};

/** The cover shown across the section (at most about 36rem), a screenshot as a tile of about 12rem. */
const coverSizes = '(min-width: 40rem) 36rem, 90vw';
const tileSizes = '(min-width: 40rem) 12rem, 45vw';

type Failure = { key: string; text: string };
type SaveState = { status: 'idle' | 'saving' | 'saved' } | { status: 'failed'; error: unknown };

/**
 * The overview's 'Cover and screenshots' (issue 19): the pictures of the store page. Those who may edit
 * the project (patchProject: owner, admins, developers) pick or drop image files, which go up through the
 * paste flow's code (lib/content-images.ts: JPEG in the browser, create, part 0 with spec §9's retries,
 * finalize), reorder the screenshots (buttons, so the keyboard does it too), remove them or make one the
 * cover; every change is saved at once with PUT .../media, and what happens is said in words. Others see
 * the pictures, when there are any.
 */
export function MediaSection({ project }: { project: Project }) {
  const media = trpc.projects.media.get.useQuery({ project: project.id });
  const editable = can(project, 'patchProject');
  if (!editable) {
    if (!media.data || (!media.data.cover && media.data.screenshots.length === 0)) return null;
    return (
      <section className="section project_media" aria-labelledby="project-media">
        <h2 id="project-media">{m.project_media_heading()}</h2>
        <MediaView title={project.title} media={media.data} />
      </section>
    );
  }
  return (
    <section className="section project_media" aria-labelledby="project-media">
      <h2 id="project-media">{m.project_media_heading()}</h2>
      <p className="section_intro">{m.project_media_intro()}</p>
      {media.isPending ? <LoadingState /> : null}
      {media.error ? <ErrorState error={media.error} onRetry={() => void media.refetch()} /> : null}
      {media.data ? <MediaEditor project={project} initial={media.data} /> : null}
    </section>
  );
}

function MediaView({ title, media }: { title: string; media: ProjectMedia }) {
  return (
    <div className="project_media_view">
      {media.cover ? <MediaPicture image={media.cover} alt={m.project_media_cover_alt({ title })} sizes={coverSizes} className="project_media_cover_image" /> : null}
      {media.screenshots.length > 0 ? (
        <ul className="project_media_tiles">
          {media.screenshots.map((image, index) => (
            <li key={image.id} className="project_media_tile">
              <MediaPicture image={image} alt={m.project_media_screenshot_label({ position: String(index + 1), count: String(media.screenshots.length) })} sizes={tileSizes} />
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** A finalized image with its srcset and size (the content image rule), lazily. */
function MediaPicture({ image, alt, sizes, className }: { image: MediaImage; alt: string; sizes: string; className?: string }) {
  const sources = imageSources(image);
  return (
    <img
      className={className}
      src={image.url}
      srcSet={sources.srcset}
      sizes={sources.widthDescriptors ? sizes : undefined}
      width={sources.width}
      height={sources.height}
      alt={alt}
      loading="lazy"
      decoding="async"
    />
  );
}

function uploadText(upload: SlotUpload): string {
  if (upload.status === 'converting') return m.markdown_image_converting({ name: upload.name });
  if (upload.status === 'retrying') return m.markdown_image_retrying({ name: upload.name });
  return m.markdown_image_uploading({ name: upload.name });
}

function MediaEditor({ project, initial }: { project: Project; initial: ProjectMedia }) {
  const utils = trpc.useUtils();
  const put = trpc.projects.media.put.useMutation();
  const [draft, setDraftState] = useState<MediaDraft>(() => draftOf(initial));
  const current = useRef(draft);
  const [failures, setFailures] = useState<Failure[]>([]);
  const [announcement, setAnnouncement] = useState('');
  const [save, setSave] = useState<SaveState>({ status: 'idle' });
  const saving = useRef<{ running: boolean; again: boolean }>({ running: false, again: false });
  const { controller, previews } = useUploadScope();
  const root = useRef<HTMLDivElement>(null);
  // Where focus goes once a change is drawn: a moved tile's button (React moves its element, which
  // drops focus), a neighbour of a removed one.
  const focusNext = useRef<string | null>(null);
  useLayoutEffect(() => {
    const selector = focusNext.current;
    if (!selector) return;
    focusNext.current = null;
    root.current?.querySelector<HTMLElement>(selector)?.focus();
  }, [draft]);


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
        const saved = await put.mutateAsync({ project: project.id, ...toPutInput(current.current) });
        utils.projects.media.get.setData({ project: project.id }, saved);
      } while (saving.current.again);
      setSave({ status: 'saved' });
      // The store page shows the new pictures on its next visit.
      void utils.store.project.invalidate({ project: project.id });
    } catch (error) {
      if (!controller.current?.signal.aborted) setSave({ status: 'failed', error });
    } finally {
      saving.current.running = false;
    }
  }, [put, project.id, utils]);

  const change = useCallback(
    (edit: (draft: MediaDraft) => MediaDraft, said?: string) => {
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
        const image = await uploadContentImage(project.id, prepared, { signal, onRetry: () => status('retrying'), onTry: () => status('uploading') });
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
    [change, project.id],
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

  const count = draft.screenshots.length;
  return (
    <div className="project_media_editor" ref={root}>
      <CoverArea
        title={project.title}
        slot={draft.cover}
        onFiles={(files) => take(files, 'cover')}
        onRemove={() => {
          focusNext.current = '[data-pick="cover"]';
          change((draft) => ({ ...draft, cover: null }), m.project_media_cover_removed());
        }}
      />
      <ScreenshotsArea
        slots={draft.screenshots}
        coverId={draft.cover?.image?.id}
        onFiles={(files) => take(files, 'screenshot')}
        onMove={(key, step) => {
          const from = current.current.screenshots.findIndex((slot) => slot.key === key);
          focusNext.current = `[data-slot="${key}"] [data-move="${step < 0 ? 'earlier' : 'later'}"]`;
          change((draft) => moveScreenshot(draft, key, step), m.project_media_moved({ position: String(from + step + 1), count: String(count) }));
        }}
        onRemove={(key) => {
          const list = current.current.screenshots;
          const at = list.findIndex((slot) => slot.key === key);
          const neighbour = list[at + 1] ?? list[at - 1];
          focusNext.current = neighbour ? `[data-slot="${neighbour.key}"] [data-remove]` : '[data-pick="screenshots"]';
          change((draft) => removeScreenshot(draft, key), m.project_media_removed());
        }}
        onCover={(key) => change((draft) => coverFromScreenshot(draft, key), m.project_media_cover_set())}
      />
      {failures.length > 0 ? (
        <ul className="pasted_images project_media_failures" aria-label={m.project_media_failures_label()}>
          {failures.map((failure) => (
            <li key={failure.key} className="pasted_image" data-status="failed">
              <span className="pasted_image_text">{failure.text}</span>
              <button type="button" className="button button_small" onClick={() => setFailures((list) => list.filter((item) => item.key !== failure.key))}>
                {m.markdown_image_dismiss()}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <p className="project_media_status" role="status" data-save={save.status}>
        {announcement ? <span className="project_media_announcement">{announcement} </span> : null}
        {save.status === 'saving' ? m.project_media_saving() : save.status === 'saved' ? m.project_media_saved() : null}
      </p>
      {save.status === 'failed' ? (
        <div className="project_media_save_failed" role="alert">
          <span>{m.project_media_save_failed({ reason: errorText(toDisplayError(save.error)) })}</span>
          <button type="button" className="button button_small" onClick={() => void runSave()}>
            {m.state_retry()}
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** Drag and drop of files onto an area: highlighted while files hover it. */
function useFileDrop(onFiles: (files: FileList) => void) {
  const [over, setOver] = useState(false);
  const hasFiles = (event: DragEvent) => Array.from(event.dataTransfer?.types ?? []).includes('Files');
  return {
    over,
    handlers: {
      onDragEnter: (event: DragEvent) => {
        if (hasFiles(event)) setOver(true);
      },
      onDragOver: (event: DragEvent) => {
        if (!hasFiles(event)) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
      },
      onDragLeave: (event: DragEvent) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setOver(false);
      },
      onDrop: (event: DragEvent) => {
        setOver(false);
        if (!hasFiles(event)) return;
        event.preventDefault();
        onFiles(event.dataTransfer.files);
      },
    },
  };
}

/** A button opening the system's file picker (the input itself stays hidden). */
function PickButton({ label, multiple, onFiles, pick }: { label: string; multiple: boolean; onFiles: (files: FileList) => void; pick: 'cover' | 'screenshots' }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className="button" data-pick={pick} onClick={() => input.current?.click()}>
        {label}
      </button>
      <input
        ref={input}
        type="file"
        accept="image/*"
        multiple={multiple}
        hidden
        tabIndex={-1}
        aria-hidden="true"
        data-testid={`project-media-${pick}-input`}
        onChange={(event) => {
          const files = event.currentTarget.files;
          if (files && files.length > 0) onFiles(files);
          event.currentTarget.value = '';
        }}
      />
    </>
  );
}

function UploadingPicture({ upload, className }: { upload: SlotUpload; className?: string }) {
  const text = uploadText(upload);
  return (
    <div className={`project_media_uploading ${className ?? ''}`.trim()} data-status={upload.status}>
      <img src={upload.preview} alt="" className="project_media_preview" />
      <p className="project_media_upload_text">
        <span>{text}</span>
        {upload.status !== 'retrying' ? <progress className="project_media_progress" aria-label={text} /> : null}
      </p>
    </div>
  );
}

function CoverArea({ title, slot, onFiles, onRemove }: { title: string; slot: Slot | null; onFiles: (files: FileList) => void; onRemove: () => void }) {
  const drop = useFileDrop(onFiles);
  const hintId = useId();
  return (
    <div className="project_media_area project_media_cover" data-dragging={drop.over || undefined} aria-describedby={hintId} {...drop.handlers}>
      <h3>{m.project_media_cover()}</h3>
      <div className="project_media_cover_frame">
        {slot?.upload ? (
          <UploadingPicture upload={slot.upload} />
        ) : slot?.image ? (
          <MediaPicture image={slot.image} alt={m.project_media_cover_alt({ title })} sizes={coverSizes} className="project_media_cover_image" />
        ) : (
          <p className="project_media_empty">{m.project_media_cover_none()}</p>
        )}
      </div>
      <div className="actions project_media_actions">
        <PickButton label={slot ? m.project_media_cover_replace() : m.project_media_cover_pick()} multiple={false} onFiles={onFiles} pick="cover" />
        {slot?.image ? (
          <button type="button" className="button button_quiet" onClick={onRemove}>
            {m.project_media_cover_remove()}
          </button>
        ) : null}
      </div>
      <p id={hintId} className="field_hint project_media_hint">
        {m.project_media_drop_hint()}
      </p>
    </div>
  );
}

function ScreenshotsArea(props: {
  slots: Slot[];
  coverId: string | undefined;
  onFiles: (files: FileList) => void;
  onMove: (key: string, step: number) => void;
  onRemove: (key: string) => void;
  onCover: (key: string) => void;
}) {
  const { slots, onFiles } = props;
  const drop = useFileDrop(onFiles);
  const hintId = useId();
  const full = slots.length >= maxScreenshots;
  return (
    <div className="project_media_area project_media_screenshots" data-dragging={drop.over || undefined} aria-describedby={hintId} {...drop.handlers}>
      <div className="project_media_area_head">
        <h3>{m.project_media_screenshots()}</h3>
        <span className="project_media_count">{m.project_media_screenshots_count({ count: String(slots.length), max: String(maxScreenshots) })}</span>
      </div>
      {slots.length === 0 ? (
        <p className="project_media_empty">{m.project_media_screenshots_none()}</p>
      ) : (
        <ol className="project_media_tiles">
          {slots.map((slot, index) => (
            <ScreenshotTile key={slot.key} slot={slot} index={index} count={slots.length} {...props} />
          ))}
        </ol>
      )}
      <div className="actions project_media_actions">
        {full ? null : <PickButton label={m.project_media_screenshots_add()} multiple onFiles={onFiles} pick="screenshots" />}
      </div>
      <p id={hintId} className="field_hint project_media_hint">
        {full ? m.project_media_full({ max: String(maxScreenshots) }) : m.project_media_drop_hint()}
      </p>
    </div>
  );
}

function ScreenshotTile({ slot, index, count, coverId, onMove, onRemove, onCover }: { slot: Slot; index: number; count: number; coverId: string | undefined; onMove: (key: string, step: number) => void; onRemove: (key: string) => void; onCover: (key: string) => void }) {
  const label = m.project_media_screenshot_label({ position: String(index + 1), count: String(count) });
  let picture: ReactNode = null;
  if (slot.upload) picture = <UploadingPicture upload={slot.upload} />;
  else if (slot.image) picture = <MediaPicture image={slot.image} alt={label} sizes={tileSizes} />;
  const ready = slot.image !== undefined && !slot.upload;
  const isCover = ready && slot.image!.id === coverId;
  // aria-disabled, not disabled: a button that reaches the end keeps the focus it had.
  const first = index === 0;
  const last = index === count - 1;
  return (
    <li className="project_media_tile" data-slot={slot.key} data-image-id={slot.image?.id}>
      <div role="group" aria-label={label} className="project_media_tile_body">
        <div className="project_media_tile_picture">
          {picture}
          {isCover ? <span className="badge project_media_cover_badge">{m.project_media_cover()}</span> : null}
        </div>
        {ready ? (
          <div className="project_media_tile_actions">
            <button
              type="button"
              className="button button_small project_media_move"
              aria-label={m.project_media_move_earlier()}
              title={m.project_media_move_earlier()}
              aria-disabled={first || undefined}
              data-move="earlier"
              onClick={() => {
                if (!first) onMove(slot.key, -1);
              }}
            >
              <span aria-hidden="true" className="project_media_arrow">
                ←
              </span>
            </button>
            <button
              type="button"
              className="button button_small project_media_move"
              aria-label={m.project_media_move_later()}
              title={m.project_media_move_later()}
              aria-disabled={last || undefined}
              data-move="later"
              onClick={() => {
                if (!last) onMove(slot.key, 1);
              }}
            >
              <span aria-hidden="true" className="project_media_arrow">
                →
              </span>
            </button>
            <button
              type="button"
              className="button button_small"
              aria-disabled={isCover || undefined}
              onClick={() => {
                if (!isCover) onCover(slot.key);
              }}
            >
              {m.project_media_use_as_cover()}
            </button>
            <button type="button" className="button button_small button_danger_text" data-remove onClick={() => onRemove(slot.key)}>
              {m.project_media_remove()}
            </button>
          </div>
        ) : null}
      </div>
    </li>
  );
}

