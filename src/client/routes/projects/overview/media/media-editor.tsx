import { useLayoutEffect, useRef } from 'react';
import { project_media_cover_removed } from '../../../../../shared/i18n/paraglide/messages/project_media_cover_removed.js';
import { project_media_cover_set } from '../../../../../shared/i18n/paraglide/messages/project_media_cover_set.js';
import { project_media_moved } from '../../../../../shared/i18n/paraglide/messages/project_media_moved.js';
import { project_media_removed } from '../../../../../shared/i18n/paraglide/messages/project_media_removed.js';
import { useUploadScope } from '../../../../lib/upload-scope.ts';
import type { ProjectMedia } from '../../../../../shared/schemas/project-media.ts';
import type { Project } from '../../../../../shared/schemas/projects.ts';
import { CoverArea } from './cover-area.tsx';
import { coverFromScreenshot, moveScreenshot, removeScreenshot } from './media-draft.ts';
import { MediaFailures } from './media-failures.tsx';
import { MediaSaveStatus } from './media-save-status.tsx';
import { ScreenshotsArea } from './screenshots-area.tsx';
import { useMediaSave } from './use-media-save.ts';
import { useMediaUploads } from './use-media-uploads.ts';

// Messages are imported one module each: importing `m` from paraglide/messages.js would put every
// message into the initial chunk (Bun's code splitting keeps a shared barrel whole).
const m = { project_media_cover_removed, project_media_cover_set, project_media_moved, project_media_removed };

/**
 * The cover and screenshots for those who may edit them: the draft and its saving (use-media-save.ts),
 * the uploads (use-media-uploads.ts), and where focus goes after a change.
 */
export function MediaEditor({ project, initial }: { project: Project; initial: ProjectMedia }) {
  const scope = useUploadScope();
  const { draft, current, change, announcement, save, runSave } = useMediaSave(project.id, initial, scope.controller);
  const { failures, dismiss, take } = useMediaUploads(project.id, current, change, scope);
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
      <MediaFailures failures={failures} onDismiss={dismiss} />
      <MediaSaveStatus announcement={announcement} save={save} onRetry={() => void runSave()} />
    </div>
  );
}
